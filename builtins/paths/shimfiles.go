package paths

import (
	"path"
	"strings"
)

// ShimChoiceFile reports whether the clean path p is a file a version
// manager's shim reads to choose the program it runs (shims.go): asdf's
// and mise's .tool-versions, the name files (.python-version, .nvmrc, …),
// mise's configuration files and conf.d directories, Volta's project
// hooks. The policy reads them when the call is decided; one written
// earlier in the same command is not on disk yet (docs/shell.md, "What a
// program reads besides its argv").
func ShimChoiceFile(p string) bool {
	base := path.Base(p)
	switch base {
	case ".tool-versions", ".python-version", ".ruby-version", ".node-version", ".nvmrc", ".go-version", ".java-version":
		return true
	}
	for _, v := range versionFiles {
		if base == v {
			return true
		}
	}
	names := append(miseConfigs(), ".config/mise/conf.d", "mise/conf.d", ".mise/conf.d", ".volta/hooks.json", ".volta")
	for _, n := range names {
		if p == n || strings.HasSuffix(p, "/"+n) || strings.Contains(p, "/"+n+"/") {
			return true
		}
	}
	return false
}
