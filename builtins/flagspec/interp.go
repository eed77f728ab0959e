package flagspec

// Interpreters and shells run code, so they are never read-only. The only
// exceptions are the exact argv forms below, which print a version and exit
// without reading a script or stdin. "ruby -v" is not one of them: it prints
// the version and then runs a script from stdin. "python -v" is verbose mode,
// not a version query.
var versionForms = map[string][]string{
	"python":  {"--version", "-V", "-VV"},
	"python3": {"--version", "-V", "-VV"},
	"python2": {"--version", "-V"},
	"node":    {"--version", "-v"},
	"nodejs":  {"--version", "-v"},
	"deno":    {"--version", "-V"},
	"bun":     {"--version", "-v"},
	"ruby":    {"--version"},
	"perl":    {"--version", "-v"},
	"php":     {"--version", "-v"},
	"bash":    {"--version"},
	"zsh":     {"--version"},
	"java":    {"--version", "-version"},
	"rustc":   {"--version", "-V"},
	"gcc":     {"--version"},
	"clang":   {"--version"},
	"make":    {"--version", "-v"},
}

// interpreterReason says why an interpreter or shell is never read-only.
var interpreterReason = map[string]string{
	"python": "runs code", "python3": "runs code", "python2": "runs code",
	"node": "runs code", "nodejs": "runs code", "deno": "runs code", "bun": "runs code",
	"ruby": "runs code", "perl": "runs code", "php": "runs code", "java": "runs code",
	"bash": "is a shell and runs commands", "sh": "is a shell and runs commands",
	"zsh": "is a shell and runs commands", "dash": "is a shell and runs commands",
	"ksh": "is a shell and runs commands", "fish": "is a shell and runs commands",
	"rustc": "compiles and writes files", "gcc": "compiles and writes files",
	"clang": "compiles and writes files", "make": "runs the commands of a makefile",
}

// judgeExact handles the interpreters' version forms; ok is false when the
// program is not an interpreter.
func judgeExact(argv []string) (Verdict, bool) {
	why, isInterp := interpreterReason[argv[0]]
	if !isInterp {
		return Verdict{}, false
	}
	if len(argv) == 2 {
		for _, f := range versionForms[argv[0]] {
			if argv[1] == f {
				return Verdict{Known: true, ReadOnly: true}, true
			}
		}
	}
	return Verdict{Known: true, Reason: argv[0] + " " + why}, true
}

// knownWriters are programs permopa knows and that are never read-only
// (they write, execute or change state), with the reason. Programs with
// subcommands that have no read-only subcommand at all are listed in
// subcommandOnly so that Subcommand is still reported.
var knownWriters = map[string]string{
	"curl":           "reaches the network and can write files or send data",
	"wget":           "downloads files",
	"ssh":            "runs commands on another host",
	"scp":            "copies files over the network",
	"rsync":          "copies and deletes files",
	"sftp":           "copies files over the network",
	"nc":             "opens network connections",
	"ncat":           "opens network connections",
	"socat":          "opens network connections",
	"telnet":         "opens network connections",
	"dd":             "writes devices and files",
	"mkfs":           "formats file systems",
	"chmod":          "changes file modes",
	"chown":          "changes file owners",
	"chgrp":          "changes file groups",
	"install":        "copies files",
	"truncate":       "changes file sizes",
	"shred":          "destroys files",
	"tar":            "writes archives and extracts files; its options can run programs (--to-command, --checkpoint-action, -I)",
	"zip":            "writes archives",
	"unzip":          "extracts files",
	"gzip":           "replaces files",
	"gunzip":         "replaces files",
	"bzip2":          "replaces files",
	"xz":             "replaces files",
	"patch":          "modifies files",
	"kill":           "signals processes",
	"pkill":          "signals processes",
	"killall":        "signals processes",
	"reboot":         "reboots the machine",
	"shutdown":       "shuts the machine down",
	"sudo":           "runs commands as another user",
	"su":             "runs commands as another user",
	"doas":           "runs commands as another user",
	"eval":           "runs its arguments as a command",
	"exec":           "replaces the shell with a command",
	"source":         "runs a script in the shell",
	".":              "runs a script in the shell",
	"xargs":          "runs commands",
	"vi":             "is an interactive editor",
	"vim":            "is an interactive editor",
	"nvim":           "is an interactive editor",
	"nano":           "is an interactive editor",
	"emacs":          "is an interactive editor",
	"less":           "is an interactive pager that can run commands and write files",
	"more":           "is an interactive pager that can run commands",
	"crontab":        "changes scheduled jobs",
	"unalias":        "changes aliases",
	"set":            "changes shell options",
	"shopt":          "changes shell options",
	"trap":           "installs commands run on signals",
	"npx":            "downloads and runs packages",
	"pnpx":           "downloads and runs packages",
	"uvx":            "downloads and runs packages",
	"terraform":      "changes infrastructure",
	"helm":           "changes cluster state",
	"uv":             "installs packages and runs code",
	"poetry":         "installs packages and runs code",
	"conda":          "installs packages",
	"gem":            "installs packages",
	"bundle":         "installs packages and runs code",
	"rustup":         "installs toolchains",
	"dnf":            "installs and removes packages",
	"yum":            "installs and removes packages",
	"snap":           "installs and removes packages",
	"launchctl":      "controls services",
	"service":        "controls services",
	"aws":            "calls cloud APIs that change state",
	"gcloud":         "calls cloud APIs that change state",
	"az":             "calls cloud APIs that change state",
	"podman":         "runs containers",
	"docker-compose": "runs containers",
	"mvn":            "builds and runs code",
	"gradle":         "builds and runs code",
	"pytest":         "runs code",
	"jest":           "runs code",
	"tsc":            "compiles and writes files",
	"eslint":         "runs code from its configuration",
	"prettier":       "rewrites files",
	"open":           "opens files and URLs in other programs",
	"xdg-open":       "opens files and URLs in other programs",
}

func init() {
	for _, p := range []string{
		"bun", "dnf", "yum", "snap", "launchctl", "service", "terraform", "helm", "uv", "poetry",
		"conda", "gem", "bundle", "rustup", "aws", "gcloud", "az", "podman",
		"docker-compose", "mvn", "gradle",
	} {
		subcommandPrograms[p] = true
	}
}
