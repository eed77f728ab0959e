package scriptfile

import (
	"path/filepath"
	"strings"
)

// Lifecycle scripts (docs/shell.md, "Scripts"): npm install, ci, pack,
// publish, version, rebuild, link, update, uninstall, and yarn's, pnpm's
// and bun's install and add, run the root package's own lifecycle scripts
// (package.json "postinstall", "prepare", ...), read here as package
// scripts are, and the install scripts of the packages they install: a
// package's program, which permopa does not read (Script.Unknown on the
// call's own Script). --ignore-scripts, or ignore-scripts=true in the
// package's .npmrc for npm, turns both off: then the call is judged by its
// words. The project's .npmrc can only add danger elsewhere; this entry
// only removes scripts, so honouring it never allows more than runs.

// Root lifecycle events, in the order npm 11 runs them (measured with the
// real npm: TestNpmLifecycleAgainstNpm). The dependencies events run when
// the installed tree changes; they are included whenever it may.
var (
	installEvents = []string{"preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"}
	depTreeEvents = []string{"predependencies", "dependencies", "postdependencies"}
	packEvents    = []string{"prepack", "prepare", "postpack"}
	publishEvents = []string{"prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"}
	versionEvents = []string{"preversion", "version", "postversion"}
	rebuildEvents = []string{"preinstall", "install", "postinstall", "prepare"}
	linkEvents    = []string{"preinstall", "prepare", "install", "postinstall"}
	testEvents    = []string{"pretest", "test", "posttest"}
)

// depsRun is why a call runs its dependencies' install scripts.
func depsRun(manager, cmd string) string {
	return manager + " " + cmd + " runs the install scripts of the packages it installs, a package's program permopa does not read (--ignore-scripts turns them off)"
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// npmLifecycle is what npm command cmd (canonical) runs: the root
// package's events and whether dependencies' scripts run; ok false when
// cmd runs no lifecycle script. operands: cmd has positional words.
func npmLifecycle(cmd string, operands bool) (events []string, deps string, unknown string, ok bool) {
	switch cmd {
	case "install":
		if operands {
			// npm install <pkg> runs the dependencies events of the
			// root, not its install scripts (npm 11, measured).
			return depTreeEvents, depsRun("npm", cmd), "", true
		}
		return concat(installEvents, depTreeEvents), depsRun("npm", cmd), "", true
	case "ci":
		return concat(installEvents, depTreeEvents), depsRun("npm", cmd), "", true
	case "install-test", "install-ci-test":
		return concat(installEvents, depTreeEvents, testEvents), depsRun("npm", cmd), "", true
	case "update", "uninstall", "dedupe":
		return depTreeEvents, depsRun("npm", cmd), "", true
	case "prune":
		return depTreeEvents, "", "", true
	case "rebuild":
		if operands {
			return nil, depsRun("npm", cmd), "", true
		}
		return rebuildEvents, depsRun("npm", cmd), "", true
	case "link":
		if operands {
			return depTreeEvents, depsRun("npm", cmd), "", true
		}
		return linkEvents, depsRun("npm", cmd), "", true
	case "pack", "publish":
		if operands {
			return nil, "", "npm " + cmd + " of another package runs that package's scripts, which permopa does not read", true
		}
		if cmd == "pack" {
			return packEvents, "", "", true
		}
		return publishEvents, "", "", true
	case "version":
		if !operands {
			return nil, "", "", false // prints the versions
		}
		return versionEvents, "", "", true
	}
	return nil, "", "", false
}

// managerLifecycle is npmLifecycle for yarn, pnpm and bun (cmd as typed;
// "" for a bare yarn, which installs). Which root scripts each runs
// differs between versions (Yarn 1 and 2+, pnpm's enable-pre-post-scripts,
// bun's): the union is taken. pnpm 10 and bun run only the dependencies'
// scripts the project allows (onlyBuiltDependencies, trustedDependencies,
// bun's own list of trusted packages), lists the project itself writes,
// and older pnpm runs them all: they are taken as running.
func managerLifecycle(manager, cmd string, operands bool) (events []string, deps string, unknown string, ok bool) {
	c := canonicalCommand(manager, cmd)
	rootInstall := concat(installEvents, depTreeEvents)
	if manager == "pnpm" {
		rootInstall = append([]string{"pnpm:devPreinstall"}, rootInstall...)
	}
	switch c {
	case "", "install", "add", "remove", "upgrade", "update", "dedupe", "import":
		if manager == "bun" && c == "import" {
			return nil, "", "", false
		}
		return rootInstall, depsRun(manager, firstOf(cmd, "install")), "", true
	case "install-test":
		if manager == "pnpm" {
			return concat(rootInstall, testEvents), depsRun(manager, cmd), "", true
		}
	case "rebuild":
		if manager != "bun" {
			return concat(rebuildEvents, depTreeEvents), depsRun(manager, cmd), "", true
		}
	case "link":
		if manager != "bun" || !operands {
			return concat(linkEvents, depTreeEvents), depsRun(manager, cmd), "", true
		}
		return rootInstall, depsRun(manager, cmd), "", true
	case "pack":
		if manager == "bun" {
			return nil, "", "", false // bun pm pack
		}
		if operands {
			return nil, "", manager + " " + cmd + " with operands is not modelled: it may pack another package", true
		}
		return concat(packEvents, []string{"prepublish"}), "", "", true
	case "publish":
		if operands {
			return nil, "", manager + " " + cmd + " of another package runs that package's scripts, which permopa does not read", true
		}
		return concat([]string{"prepublish"}, publishEvents), "", "", true
	case "version":
		if manager == "yarn" {
			return versionEvents, "", "", true
		}
	}
	return nil, "", "", false
}

// canonicalCommand spells a yarn, pnpm or bun command as one name.
func canonicalCommand(manager, cmd string) string {
	aliases := map[string]map[string]string{
		"yarn": {"i": "install", "isntall": "install", "rb": "rebuild", "ln": "link", "un": "remove", "r": "remove",
			"rm": "remove", "uninstall": "remove", "unlink": "remove", "up": "upgrade", "update": "upgrade", "verison": "version"},
		"pnpm": {"i": "install", "rm": "remove", "uninstall": "remove", "un": "remove", "up": "update", "upgrade": "update",
			"ln": "link", "rb": "rebuild", "it": "install-test", "unlink": "remove"},
		"bun": {"i": "install", "a": "add", "rm": "remove", "r": "remove", "upgrade": "update"},
	}
	if a, ok := aliases[manager][cmd]; ok {
		return a
	}
	return cmd
}

// npmrcIgnoresScripts reports whether the .npmrc npm reads as the
// project's configuration (the package's directory, npm's prefix) sets
// ignore-scripts=true; its last setting counts, as in npm's ini reading.
// Anything else (absent, false, a ${VAR}) is not true: scripts run.
func npmrcIgnoresScripts(f *Files, pkgDir string) bool {
	data, err := f.ReadSetting(filepath.Join(pkgDir, ".npmrc"))
	if err != nil {
		return false
	}
	on := false
	for _, ln := range strings.Split(string(data), "\n") {
		ln = strings.TrimSpace(ln)
		k, v, ok := strings.Cut(ln, "=")
		if !ok || strings.HasPrefix(ln, "#") || strings.HasPrefix(ln, ";") {
			continue
		}
		if strings.TrimSpace(k) == "ignore-scripts" {
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			on = v == "true"
		}
	}
	return on
}
