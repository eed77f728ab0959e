package flagspec

import "strings"

// System package managers and service managers: their query forms only.

// brew: list, info, search, outdated, deps, uses, leaves, config, --prefix,
// --cellar, --repository, --version. Everything else installs, upgrades or
// runs code (brew's own commands are Ruby scripts, so unknown words are not
// read-only).
var brewSpec = &spec{
	allow: `-v --verbose -d --debug -q --quiet --prefix? --cellar? --repository? --repo? --caskroom --cache? --env`,
	subs: map[string]*spec{
		"list":     {allow: `--formula --formulae --cask --casks --full-name --versions --multiple --pinned --installed-on-request --installed-as-dependency --poured-from-bottle --built-from-source -1 -l -r -t -v -q -d`, ops: opsText},
		"ls":       {allow: `--formula --formulae --cask --casks --full-name --versions --multiple --pinned -1 -l -r -t -v -q -d`, ops: opsText},
		"info":     {allow: `--formula --formulae --cask --casks --json? --installed --eval-all --analytics --days= --category= -v --verbose -q -d --sizes`, deny: []denial{{`--github`, "opens a browser"}}, ops: opsText},
		"search":   {allow: `--formula --formulae --cask --casks --desc --eval-all --pull-request --open --closed --repology --macports --fink --opensuse --fedora --archlinux --debian --ubuntu`, ops: opsText},
		"outdated": {allow: `--formula --formulae --cask --casks --json? --fetch-HEAD -g --greedy --greedy-latest --greedy-auto-updates -q --quiet -v --verbose`, ops: opsText},
		"deps":     {allow: `-n --topological -1 --direct --union --full-name --include-build --include-optional --include-test --skip-recommended --include-requirements --tree --prune --graph --dot --annotate --installed --missing --eval-all --for-each --HEAD --formula --formulae --cask --casks`, ops: opsText},
		"uses":     {allow: `--recursive --installed --missing --eval-all --include-build --include-optional --include-test --skip-recommended --formula --formulae --cask --casks`, ops: opsText},
		"leaves":   {allow: `-r --installed-on-request -p --installed-as-dependency`, ops: opsNone},
		"config":   {ops: opsNone},
		"desc":     {allow: `-s --search -n --name -d --description --eval-all --formula --formulae --cask --casks`, ops: opsText},
		"home":     {never: "brew home opens a browser"},
		"install":  {never: "brew install installs packages"},
		"upgrade":  {never: "brew upgrade installs packages"},
		"update":   {never: "brew update changes brew's repositories"},
	},
}

// apt-cache and dpkg-query only query. apt: list, show, search, policy.
var aptCacheSpec = &spec{
	allow: `-q --quiet -i --important -f --full -a --all-versions --no-all-versions -g --generate
		--no-generate --names-only -n --all-names --recurse --installed --no-pre-depends --no-depends
		--no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances`,
	subs: map[string]*spec{
		"show": {ops: opsText}, "showpkg": {ops: opsText}, "showsrc": {ops: opsText},
		"search": {ops: opsText}, "policy": {ops: opsText}, "depends": {ops: opsText},
		"rdepends": {ops: opsText}, "madison": {ops: opsText}, "pkgnames": {ops: opsText},
		"stats": {ops: opsNone}, "dump": {ops: opsNone}, "dumpavail": {ops: opsNone},
	},
}

var aptSpec = &spec{
	allow: `-q --quiet`,
	subs: map[string]*spec{
		"list":     {allow: `--installed --upgradable --manual-installed -a --all-versions`, ops: opsText},
		"show":     {allow: `-a --all-versions`, ops: opsText},
		"search":   {allow: `--names-only --full`, ops: opsText},
		"policy":   {ops: opsText},
		"depends":  {ops: opsText},
		"rdepends": {ops: opsText},
		"install":  {never: "apt install installs packages"},
		"remove":   {never: "apt remove removes packages"},
		"update":   {never: "apt update changes the package lists"},
		"upgrade":  {never: "apt upgrade installs packages"},
	},
}

var aptGetSpec = &spec{
	subs: map[string]*spec{
		"install": {never: "apt-get install installs packages"},
		"remove":  {never: "apt-get remove removes packages"},
		"update":  {never: "apt-get update changes the package lists"},
		"upgrade": {never: "apt-get upgrade installs packages"},
	},
	noSub: "apt-get without a command is not modelled",
}

var dpkgQuerySpec = &spec{
	allow:    `-l --list -W --show -s --status -L --listfiles -S --search -p --print-avail -f= --showformat= --admindir=r --load-avail --no-pager@m`,
	ops:      opsText,
	terminal: terminalPages,
}

// systemctl: status and listing only; start, stop, enable, daemon-reload,
// edit, ... change services. --host/-H and --machine/-M reach other systems.
const systemctlCommon = ` --no-pager@m -l --full -a --all --plain --no-legend -q --quiet
	-t= --type= --state= -p= --property= -P= --value --user --system --global -n= --lines= -o= --output=
	--recursive -r --reverse --after --before --with-dependencies --show-types --failed`

var systemctlSpec = &spec{
	allow: systemctlCommon,
	deny:  []denial{{`-H= --host= -M= --machine= --root= --image=`, "reaches another system or tree"}},
	subs: map[string]*spec{
		"status":            {ops: opsText},
		"show":              {ops: opsText},
		"cat":               {ops: opsText},
		"list-units":        {ops: opsText},
		"list-unit-files":   {ops: opsText},
		"list-sockets":      {ops: opsText},
		"list-timers":       {ops: opsText},
		"list-jobs":         {ops: opsText},
		"list-dependencies": {ops: opsText},
		"is-active":         {ops: opsText},
		"is-enabled":        {ops: opsText},
		"is-failed":         {ops: opsText},
		"is-system-running": {ops: opsNone},
		"get-default":       {ops: opsNone},
		"show-environment":  {ops: opsNone},
		"start":             {never: "systemctl start starts services"},
		"stop":              {never: "systemctl stop stops services"},
		"restart":           {never: "systemctl restart restarts services"},
		"enable":            {never: "systemctl enable enables services"},
		"disable":           {never: "systemctl disable disables services"},
		"daemon-reload":     {never: "systemctl daemon-reload reloads units"},
		"edit":              {never: "systemctl edit edits units"},
	},
	inherit:  true,
	terminal: terminalPages,
}

// journalctl reads logs. --vacuum-*, --rotate, --flush, --sync,
// --relinquish-var, --smart-relinquish-var, --setup-keys and
// --update-catalog change the journal. -n/--lines and -b/--boot take an
// optional value that journalctl also takes from the next word when it
// does not start with "-"; here such a word is an operand (a match), so a
// following option is never swallowed as a value; -D/--directory, --file and --root
// read another journal (allowed, reported as read).
var journalctlSpec = &spec{
	allow: `--no-pager@m -f --follow -n? --lines? -e --pager-end -r --reverse -o= --output=
		--output-fields= -x --catalog -q --quiet -m --merge -b? --boot? --list-boots -k --dmesg
		-u= --unit= --user-unit= -t= --identifier= -T= --exclude-identifier= -p= --priority=
		--facility= -g= --grep= --case-sensitive? -S= --since= -U= --until= -c= --cursor=
		--after-cursor= --cursor-file=r --show-cursor -a --all --no-hostname --no-full -l --full
		--system --user -M= --machine= -D=r --directory=r --file=r --root=r --namespace= --utc
		-F= --field= -N --fields --disk-usage --list-catalog --dump-catalog --header --verify
		--list-namespaces --truncate-newline --no-tail`,
	deny: []denial{{`--vacuum-size= --vacuum-time= --vacuum-files= --rotate --flush --sync
		--relinquish-var --smart-relinquish-var --setup-keys --update-catalog --interval= --force`,
		"changes the journal"}},
	num:      true, // -b -1: a boot offset
	ops:      opsText,
	terminal: terminalPages,
}

// Small query programs.
var joinSpec = &spec{
	allow: `-a= -e= -i --ignore-case -j= -o= -t= -v= -1= -2= --check-order --nocheck-order --header -z --zero-terminated`,
	ops:   opsRead,
}

// shuf shuffles lines; -o/--output writes a file.
var shufSpec = &spec{
	allow: `-e --echo -i= --input-range= -n= --head-count= --random-source=r -r --repeat -z --zero-terminated`,
	deny:  []denial{{`-o=w --output=w`, "writes its output to a file"}},
	ops:   opsRead,
}

var exprSpec = &spec{anyArgs: true}
var calSpec = &spec{allow: `-1 --one -3 --three -y --year -Y --twelve -j --julian -m --monday -s --sunday -w --week?
	-h -n= --months= -S --span -v --vertical --color? --reform= --iso -c= --columns=`, ops: opsText}

// getent looks keys up in the name service databases; a host or network
// name is looked up through the resolver with a name the command chose:
// network egress (getent hosts with no key lists /etc/hosts).
var getentSpec = &spec{allow: `-s=@s --service=@s -i --no-idn`, ops: opsText, check: func(st *state) {
	// -s names the NSS services getent loads as libnss_NAME.so.2: a
	// slash makes dlopen take it as a path, relative to the working
	// directory (getent -s x/evil runs ./libnss_x/evil.so.2's code,
	// checked with glibc 2.36).
	for _, mv := range st.vals {
		if mv.mark == 's' && (strings.Contains(mv.val, "/") || strings.Contains(mv.val, Dynamic)) {
			st.fail("getent: -s " + printable(mv.val) + " loads an NSS module by path, code from a file")
		}
	}
	if len(st.ops) > 1 {
		switch st.ops[0] {
		case "hosts", "ahosts", "ahostsv4", "ahostsv6", "networks", "netgroup":
			st.egress(st.ops[1])
		}
	}
}}

// clear (ncurses) writes the terminal's clear sequence to stdout: it reads
// the terminfo entry of $TERM, or of -T's name (one holding a slash is
// refused), from TERMINFO, ~/.terminfo, TERMINFO_DIRS and the system's
// directories, data that only decides the bytes it prints; it reads the
// terminal's modes and sets none (strace, ncurses 6.4). The host's
// environment is the user's; a command or a project env that sets TERMINFO
// is judged as any assignment (docs/shell.md).
var clearSpec = &spec{allow: `-T= -V -x`, ops: opsNone}
var localeSpec = &spec{allow: `-a --all-locales -m --charmaps -c --category-name -k --keyword-name -v --verbose`, ops: opsText}
var lscpuSpec = &spec{allow: `-a --all -b --online -c --offline -e? --extended? -p? --parse? -J --json -x --hex -y --physical -B --bytes --output-all -C? --caches?`, ops: opsNone}

func init() {
	register(brewSpec, "brew")
	register(aptCacheSpec, "apt-cache")
	register(aptSpec, "apt")
	register(aptGetSpec, "apt-get")
	register(dpkgQuerySpec, "dpkg-query")
	register(systemctlSpec, "systemctl")
	register(journalctlSpec, "journalctl")
	register(joinSpec, "join")
	register(shufSpec, "shuf")
	register(exprSpec, "expr")
	register(calSpec, "cal")
	register(getentSpec, "getent")
	register(clearSpec, "clear")
	register(localeSpec, "locale")
	register(lscpuSpec, "lscpu")
}
