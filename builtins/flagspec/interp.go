package flagspec

import "strings"

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
	"lua": "runs code", "Rscript": "runs code", "R": "runs code", "julia": "runs code",
	"osascript": "runs code", "pwsh": "runs code", "powershell": "runs code", "tclsh": "runs code",
	"wish": "runs code", "expect": "runs code",
}

// judgeExact handles the interpreters' version forms; ok is false when the
// program is not an interpreter (or has a flag spec of its own, as make).
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
	if registry[argv[0]] != nil {
		return Verdict{}, false
	}
	v := Verdict{Known: true, Reason: argv[0] + " " + why}
	if ic, ok := inlineCode[argv[0]]; ok {
		v.RunsUnknown, v.CodeWords = ic.scan(argv)
	}
	return v, true
}

// interp says how an interpreter takes code on its command line.
type interp struct {
	// inline are the short options whose value (the rest of the cluster or
	// the next word) is program text; longInline the long ones.
	inline     string
	longInline []string
	// glued are short options whose value is the rest of the cluster (or
	// the next word when the cluster ends there): the scan skips it.
	glued string
	// stop are options after which the remaining words belong to a module
	// the interpreter loads (python -m): a file, not code in argv.
	stop string
	// sub are subcommands that take code (deno eval), run code from the
	// network or stdin (deno run URL is still a file the analyser does not
	// read) or run a package (bun x).
	sub map[string]string
	// noStdin: without a script operand the interpreter does not read its
	// program from stdin.
	noStdin bool
}

// inlineCode lists the interpreters whose command line can carry code:
// program text in an option (python -c, node -e, perl -e, ...) or, with no
// script operand, a program read from stdin. Both run code permopa cannot
// read (it does not prove the absence of process-starting calls, so
// "python -c 'print(1)'" counts too). A script operand is a file the
// analyser does not read, like any script: not counted here.
var inlineCode = map[string]interp{
	"python":     {inline: "c", glued: "WXQ", stop: "m"},
	"python2":    {inline: "c", glued: "WXQ", stop: "m"},
	"python3":    {inline: "c", glued: "WXQ", stop: "m"},
	"node":       {inline: "ep", longInline: []string{"--eval", "--print", "--interactive", "-i"}, glued: "rC", noStdin: false},
	"nodejs":     {inline: "ep", longInline: []string{"--eval", "--print", "--interactive", "-i"}, glued: "rC"},
	"bun":        {inline: "ep", longInline: []string{"--eval", "--print"}, sub: map[string]string{"x": "bun x runs a package's program", "repl": "bun repl reads code from stdin"}, noStdin: true},
	"deno":       {longInline: []string{"--eval"}, sub: map[string]string{"eval": "deno eval runs inline code", "repl": "deno repl reads code from stdin"}, noStdin: true},
	"perl":       {inline: "eEMm", glued: "IiCdDFlx0V"},
	"ruby":       {inline: "e", glued: "IrCEFKTWx0"},
	"php":        {inline: "rBRE", glued: "cdz", longInline: []string{"--run", "--process-begin", "--process-code", "--process-end"}},
	"lua":        {inline: "e", glued: "l"},
	"Rscript":    {inline: "e", longInline: []string{"--expr"}},
	"R":          {inline: "e"},
	"julia":      {inline: "eE", longInline: []string{"--eval", "--print"}},
	"osascript":  {inline: "e"},
	"pwsh":       {longInline: []string{"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}},
	"powershell": {longInline: []string{"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}},
	"fish":       {inline: "c", longInline: []string{"--command", "--init-command"}, glued: "C"},
	"tclsh":      {},
	"expect":     {inline: "c"},
	"wish":       {},
}

// unseenFile reports a script operand that is no file on disk: stdin, a
// process substitution or another file descriptor, a word only known at
// run time.
func unseenFile(p string) bool {
	return p == "-" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") ||
		strings.HasPrefix(p, "/proc/self/fd/") || strings.Contains(p, Dynamic)
}

// scan returns why argv runs code permopa cannot read ("" when it only
// runs a script file) and 1 + the index of the last word holding it.
func (ic interp) scan(argv []string) (string, int) {
	prog := argv[0]
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if strings.HasPrefix(a, Dynamic) {
			return prog + ": the word " + printable(a) + " is only known at run time and may be code", len(argv)
		}
		if why, ok := ic.sub[a]; ok && i == 1 {
			return why, len(argv)
		}
		if a == "-" {
			return prog + " reads its program from stdin", i + 1
		}
		if a == "--" || len(a) < 2 || a[0] != '-' {
			if a == "--" && i+1 < len(argv) {
				i++
				a = argv[i]
			}
			if a == "--" {
				break
			}
			// A script file is a file the analyser does not read, unless it
			// is no file on disk (python3 <(curl ...), node /dev/stdin).
			if unseenFile(a) {
				return prog + " runs a script that is not a file permopa can name", i + 1
			}
			return "", 0
		}
		name, _, _ := strings.Cut(a, "=")
		for _, l := range ic.longInline {
			if name == l {
				return prog + " " + l + " runs inline code that can start processes", min(i+2, len(argv))
			}
		}
		if a[1] == '-' {
			continue // other long options (node --inspect, python --check-hash-based-pycs mode)
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(ic.inline, c) >= 0 {
				// The code is the rest of the cluster or the next word
				// (node -pe CODE): allow rules spell out both.
				return prog + " -" + string(c) + " runs inline code that can start processes", min(i+2, len(argv))
			}
			if strings.IndexByte(ic.stop, c) >= 0 {
				return "", 0
			}
			if strings.IndexByte(ic.glued, c) >= 0 {
				if j+1 == len(a) {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	if ic.noStdin {
		return "", 0
	}
	return prog + " reads its program from stdin", len(argv)
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
