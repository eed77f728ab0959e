package paths

import "testing"

// BenchmarkPathProgramShims is the PATH lookup of one read-only leaf's
// program on the deciding process's PATH (docs/shell.md): ls, which no
// shims directory holds, and python3, a pyenv shim where one is on PATH.
func BenchmarkPathProgramShims(b *testing.B) {
	for _, prog := range []string{"ls", "python3"} {
		b.Run(prog, func(b *testing.B) {
			dir := b.TempDir()
			for range b.N {
				ConfigFindingsCall(nil, prog, dir, "", "")
			}
		})
	}
}
