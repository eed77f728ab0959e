//go:build slow

package permopa_test

// These imports order a cold `go test -tags slow ./...`: this package's
// slow tests (TestGoVet's `go vet ./...`, the builds of permopa, vanilla OPA
// and Regal) start only once the test binary is linked, that is once every
// package the module's programs link (OPA's command line included) is
// compiled into the build cache. Started earlier, go vet compiled OPA a
// second time beside the test builds and, on a cold cache on 2 cores, ran
// past go test's 10-minute limit. The quick suite runs none of these, so
// its test binary links none of this. TestBuildOrderCoversThePrograms keeps
// the list complete.
import (
	_ "github.com/open-policy-agent/opa/cmd"
	_ "github.com/permopa/permopa/adapter/explain"
	_ "github.com/permopa/permopa/adapter/guard"
	_ "github.com/permopa/permopa/adapter/hookclient"
	_ "github.com/permopa/permopa/adapter/opaplugin"
	_ "github.com/permopa/permopa/replay"
)
