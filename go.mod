module github.com/gompi/gompi

go 1.26.0

require golang.org/x/sys v0.49.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/spf13/pflag v1.0.10
)

require github.com/libp2p/go-reuseport v0.4.0
