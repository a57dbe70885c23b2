"""The `dialectbench` command line: thin wrappers over the library packages."""
