# fixture policies are loaded by the tests from their files, not collected as test modules
collect_ignore_glob = ["policies/fixtures/*"]
