"""End-to-end tests across packages: the real server process, the browser, the operator's errors, alike interfaces."""
