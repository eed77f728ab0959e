package flagspec

import (
	"slices"
	"strings"
)

// Spellings of a subcommand (docs/rules.md, "Spellings rules see
// through"). Parse reports a subcommand under the name the program runs it
// by, so that a rule "npm publish:*" also reads "npm pub", and "docker
// run:*" also "docker container run"; Judge selects the same node.

// npmCommands and npmAliases are npm's command list and alias table (npm
// 11, lib/utils/cmd-list.js); npm also runs any unique prefix of a command
// or an alias, and reads camelCase as kebab-case (installTest).
var npmCommands = strings.Fields(`access adduser approve-scripts audit bugs cache ci completion config dedupe
	deny-scripts deprecate diff dist-tag docs doctor edit exec explain explore find-dupes fund get help help-search
	init install install-ci-test install-scripts install-test link ll login logout ls org outdated owner pack ping
	pkg prefix profile prune publish query rebuild repo restart root run sbom search set shrinkwrap stage star
	stars start stop team test token trust undeprecate uninstall unpublish unstar update version view whoami`)

var npmAliases = map[string]string{
	"author": "owner", "home": "docs", "issues": "bugs", "info": "view", "show": "view", "find": "search",
	"add": "install", "unlink": "uninstall", "remove": "uninstall", "rm": "uninstall", "r": "uninstall",
	"un": "uninstall", "rb": "rebuild", "list": "ls", "ln": "link", "create": "init", "i": "install",
	"it": "install-test", "cit": "install-ci-test", "u": "update", "up": "update", "c": "config", "s": "search",
	"se": "search", "tst": "test", "t": "test", "ddp": "dedupe", "v": "view", "run-script": "run",
	"clean-install": "ci", "clean-install-test": "install-ci-test", "x": "exec", "why": "explain", "la": "ll",
	"verison": "version", "ic": "ci", "innit": "init", "in": "install", "ins": "install", "inst": "install",
	"insta": "install", "instal": "install", "isnt": "install", "isnta": "install", "isntal": "install",
	"isntall": "install", "install-clean": "ci", "isntall-clean": "ci", "hlep": "help", "dist-tags": "dist-tag",
	"upgrade": "update", "udpate": "update", "rum": "run", "sit": "install-ci-test", "urn": "run", "ogr": "org",
	"add-user": "adduser",
}

// npmCommand is the command npm runs for word: word itself when npm does
// not know it.
func npmCommand(word string) string {
	c := word
	if strings.ContainsAny(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		var b strings.Builder
		for _, r := range c {
			if r >= 'A' && r <= 'Z' {
				b.WriteByte('-')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		c = b.String()
	}
	if slices.Contains(npmCommands, c) {
		return c
	}
	if a, ok := npmAliases[c]; ok {
		return a
	}
	// A unique prefix of a command or an alias.
	match := ""
	for _, n := range npmCommands {
		if strings.HasPrefix(n, c) {
			if match != "" {
				return word
			}
			match = n
		}
	}
	for n := range npmAliases {
		if strings.HasPrefix(n, c) {
			if match != "" {
				return word
			}
			match = n
		}
	}
	if match == "" {
		return word
	}
	for i := 0; i < 4; i++ {
		a, ok := npmAliases[match]
		if !ok {
			break
		}
		match = a
	}
	return match
}

// subcommandAliases are subcommand paths a program runs as another one:
// docker's management commands and their legacy top-level names (docker
// container run is docker run), pnpm's aliases. Parse reports the value.
var subcommandAliases = map[string]map[string]string{
	"docker": {
		"container attach": "attach", "container commit": "commit", "container cp": "cp", "container create": "create",
		"container diff": "diff", "container exec": "exec", "container export": "export", "container inspect": "inspect",
		"container kill": "kill", "container logs": "logs", "container ls": "ps", "container list": "ps", "container ps": "ps",
		"container pause": "pause", "container port": "port", "container rename": "rename", "container restart": "restart",
		"container rm": "rm", "container remove": "rm", "container run": "run", "container start": "start",
		"container stats": "stats", "container stop": "stop", "container top": "top", "container unpause": "unpause",
		"container update": "update", "container wait": "wait",
		"image build": "build", "image history": "history", "image import": "import", "image inspect": "inspect",
		"image load": "load", "image ls": "images", "image list": "images", "image pull": "pull", "image push": "push",
		"image rm": "rmi", "image remove": "rmi", "image save": "save", "image tag": "tag",
		"system events": "events", "system info": "info", "builder build": "build", "buildx build": "build",
	},
	"pnpm": {
		"i": "install", "rm": "remove", "uninstall": "remove", "un": "remove", "up": "update", "upgrade": "update",
		"t": "test", "tst": "test", "run-script": "run", "ln": "link", "ls": "list",
	},
}

// canonicalSubcommand is the subcommand path program runs for sub.
func canonicalSubcommand(program, sub string) string {
	if a, ok := subcommandAliases[program][sub]; ok {
		return a
	}
	return sub
}

// NpmCommand is the npm command a word runs ("rum" and "t" run run and
// test), the word itself when npm knows no such command: builtins/scriptfile
// reads package scripts with it.
func NpmCommand(word string) string { return npmCommand(word) }
