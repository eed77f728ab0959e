package paths

import "strings"

// ConfigWriteMatters reports whether writing the clean path p changes
// what program reads from the project when the policy looks at it
// (project_configs, read when the call is decided): a version manager's
// file for any program PATH looks up (ShimChoiceFile); for info, any file
// (it looks names up in its working directory and decompresses them
// through sh -c with the name in the command line, infoDir); for go, a
// version-control directory of another system (goVCS), a go.mod, go.work
// or go env file (goToolchain). Writes of the
// other programs' files (.git/config, .npmrc, .yarnrc.yml, .cargo/config.toml,
// rust-toolchain.toml) are code-running paths, a safety ASK on their own.
func ConfigWriteMatters(program, p string) bool {
	switch program {
	case "info":
		return true
	case "go":
		// The go.mod or go.work whose go or toolchain line may make go
		// switch toolchains (goToolchain), and go env -w's file.
		if b := p[strings.LastIndex(p, "/")+1:]; b == "go.mod" || b == "go.work" || strings.HasSuffix(p, "/go/env") {
			return true
		}
		for _, m := range goVCSMarkers {
			if strings.HasSuffix(p, "/"+m) || strings.Contains(p, "/"+m+"/") {
				return true
			}
		}
	}
	return ShimChoiceFile(p)
}
