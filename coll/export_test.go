package coll

// ReadEnvironment rereads the GOMPI_COLL_<OP> overrides, which the package
// otherwise reads once: for tests that set them with t.Setenv.
func ReadEnvironment() { readEnvChoices() }
