package engine_test

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/settings"
)

// BenchmarkNewCold compiles the embedded policy as a cold hook process
// does once (docs/hosts.md): with every OPA check, with the check-only
// stages skipped (WithCheckedPolicy), and that with the collector off, as
// a one-shot process can run under a memory limit.
//
//	go test ./engine -run '^$' -bench NewCold -benchtime 20x -benchmem
func BenchmarkNewCold(b *testing.B) {
	for _, c := range []struct {
		name  string
		opts  []engine.Option
		gcOff bool
	}{
		{"checked_by_opa", nil, false},
		{"prechecked", []engine.Option{engine.WithCheckedPolicy()}, false},
		{"prechecked_gc_off", []engine.Option{engine.WithCheckedPolicy()}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.gcOff {
				defer debug.SetGCPercent(debug.SetGCPercent(-1))
			}
			opts := append([]engine.Option{engine.WithSettings(settings.Settings{Home: "/root"})}, c.opts...)
			for i := 0; i < b.N; i++ {
				if _, err := engine.New(context.Background(), opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
