package flagspec

// Package managers and toolchains: only the subcommands that list, show or
// print versions. Installing, running scripts, building and publishing are
// known but not read-only. Some listed subcommands query a registry over the
// network (npm view, pip list --outdated); that reads, it changes nothing.

const npmCommon = ` -g --global --json --long -l --parseable -p -w= --workspace= --workspaces -ws
	--include-workspace-root --location= --registry= --no-color --color= --loglevel= -s --silent
	-q --quiet -d --dd --ddd --verbose --unicode --no-unicode`

// npm: list/ls/ll/la, view/info/show/v, outdated, root, prefix, search,
// explain/why, audit (without fix), fund, config list/get,
// version (with no operand: prints versions), -v/--version.
var npmSpec = &spec{
	allow: `-v -h --usage -l`,
	alias: npmCommand,
	nopt:  true,
	subs: map[string]*spec{
		"list":     npmListSpec,
		"ls":       npmListSpec,
		"ll":       npmListSpec,
		"la":       npmListSpec,
		"view":     npmViewSpec,
		"info":     npmViewSpec,
		"show":     npmViewSpec,
		"v":        npmViewSpec,
		"outdated": {allow: npmCommon + ` -a --all --depth= --omit= --include= --before=`, ops: opsText},
		"root":     {allow: npmCommon, ops: opsNone},
		"prefix":   {allow: npmCommon, ops: opsNone},
		"search":   {allow: npmCommon + ` --searchlimit= --searchopts= --searchexclude= --description --no-description --browser?`, ops: opsText},
		"explain":  {allow: npmCommon, ops: opsText},
		"why":      {allow: npmCommon, ops: opsText},
		"fund":     {allow: npmCommon + ` --which=`, ops: opsText, deny: []denial{{`--browser?`, "opens a browser"}}},
		"audit":    {allow: npmCommon + ` --audit-level= --omit= --include= --package-lock-only --production --dry-run`, ops: opsNone},
		"config":   {allow: npmCommon, subs: map[string]*spec{"list": {allow: npmCommon, ops: opsNone}, "ls": {allow: npmCommon, ops: opsNone}, "get": {allow: npmCommon, ops: opsText}}, noSub: "npm config needs a subcommand"},
		"version":  {allow: npmCommon, ops: opsNone},
		"help":     {never: "npm help runs a viewer program"},
		"doctor":   {never: "npm doctor writes to the cache"},
		"install":  {never: "npm install installs packages and runs their scripts"},
		"i":        {never: "npm install installs packages and runs their scripts"},
		"ci":       {never: "npm ci installs packages and runs their scripts"},
		"run": {
			// "npm run" alone lists the scripts; with a name it runs one.
			allow: npmCommon,
			ops:   opsHook,
			check: func(st *state) {
				if len(st.ops) > 0 {
					st.fail("npm run runs a package script")
				}
			},
		},
		"pkg":        {allow: npmCommon, subs: map[string]*spec{"get": {allow: npmCommon, ops: opsText}}, noSub: "npm pkg needs a subcommand"},
		"run-script": {never: "npm run runs a package script"},
		"test":       {never: "npm test runs a package script"},
		"start":      {never: "npm start runs a package script"},
		"exec":       {never: "npm exec runs a package"},
		"publish":    {never: "npm publish uploads a package"},
		// npm explore PKG -- CMD runs CMD (its words joined) in a shell
		// in the package's directory.
		"explore":   {never: "npm explore runs a command in a package's directory", runs: 2, runsString: true},
		"uninstall": {never: "npm uninstall removes packages"},
		"update":    {never: "npm update installs packages"},
	},
}

var npmListSpec = &spec{
	allow: npmCommon + ` -a --all --depth= --omit= --include= --link --package-lock-only --prod
		--production --dev --only= --install-links --no-install-links`,
	ops: opsText,
}

var npmViewSpec = &spec{allow: npmCommon, ops: opsText}

// pip and pip3: list, show, freeze, check, inspect, --version. --log
// writes a log file and --python runs another interpreter: not allowed
// (they are not in the lists).
const pipCommon = ` -v --verbose -q --quiet --disable-pip-version-check --no-color --isolated
	--no-input --no-python-version-warning --require-virtualenv --timeout= --retries=
	--proxy= --cert=r --client-cert=r --trusted-host= --use-feature= --use-deprecated=`

var pipSpec = &spec{
	allow: `-V -h` + pipCommon,
	subs: map[string]*spec{
		"list": {
			allow: pipCommon + ` -o --outdated -u --uptodate -e --editable -l --local --user --path=r --pre
				--format= --not-required --exclude-editable --include-editable --exclude= -i= --index-url=
				--extra-index-url= --no-index -f= --find-links=`,
			ops: opsNone,
		},
		"show":      {allow: pipCommon + ` -f --files`, ops: opsText},
		"freeze":    {allow: pipCommon + ` --all -l --local --user --path=r --exclude-editable --exclude= -r=r --requirement=r`, ops: opsNone},
		"check":     {allow: pipCommon, ops: opsNone},
		"inspect":   {allow: pipCommon + ` --local --user --path=r`, ops: opsNone},
		"help":      {allow: pipCommon, ops: opsText},
		"index":     {subs: map[string]*spec{"versions": {allow: pipCommon + ` --pre -i= --index-url= --extra-index-url= --no-index`, ops: opsText}}},
		"install":   {never: "pip install installs packages and can run their build code"},
		"uninstall": {never: "pip uninstall removes packages"},
		"download":  {never: "pip download writes files and can run build code"},
	},
}

// go: version, env (without -w/-u, which write the go env file), list
// (without -export/-compiled/-mod, which build or may rewrite go.mod), doc
// (without -http, which starts a server) and help. Go's flag package takes
// whole-word options with one or two dashes.
var goSpec = &spec{
	subs: map[string]*spec{
		"version": {single: true, allow: `-m -v -json --m --v --json`, ops: opsRead},
		"env": {
			single: true,
			allow:  `-json --json -changed --changed`,
			deny:   []denial{{`-w --w -u --u`, "writes the go env file"}},
			ops:    opsText,
		},
		"list": {
			single: true,
			allow: `-m --m -json? --json? -f= --f= -e --e -u --u -versions --versions -retracted --retracted
				-deps --deps -test --test -find --find -reuse=r --reuse=r -tags= --tags= -buildvcs? -C=r`,
			deny: []denial{
				{`-export --export -compiled --compiled -toolexec= -exec=`, "builds packages"},
				{`-mod= --mod= -modfile= -overlay=`, "may rewrite go.mod or read other module files"},
			},
			ops: opsText,
		},
		"doc": {
			single: true,
			allow:  `-all --all -c --c -cmd --cmd -short --short -src --src -u --u`,
			deny:   []denial{{`-http? --http?`, "starts a web server"}},
			ops:    opsText,
		},
		"help":     {single: true, ops: opsText},
		"build":    {never: "go build compiles and writes files"},
		"run":      {never: "go run runs code"},
		"test":     {never: "go test runs code"},
		"vet":      {never: "go vet builds and runs analysers"},
		"get":      {never: "go get changes go.mod and downloads modules"},
		"mod":      {never: "go mod changes module files", group: true},
		"install":  {never: "go install builds and writes binaries"},
		"generate": {never: "go generate runs commands"},
		"fmt":      {never: "go fmt rewrites files"},
		"clean":    {never: "go clean deletes files"},
		"work":     {never: "go work changes workspace files", group: true},
		"tool":     {never: "go tool runs a tool", group: true},
	},
}

// cargo: --version/-V and "cargo version" only; every cargo subcommand can
// run build scripts or rewrite Cargo.lock.
var cargoSpec = &spec{
	allow: `-V --list -h`,
	subs: map[string]*spec{
		"version": {allow: `-v --verbose`, ops: opsNone},
	},
}

// pnpm and yarn: list and version forms.
var pnpmSpec = &spec{
	allow: `-v -h`,
	subs: map[string]*spec{
		"list":     {allow: npmCommon + ` --depth= -P --prod -D --dev --only-projects -r --recursive`, ops: opsText},
		"ls":       {allow: npmCommon + ` --depth= -P --prod -D --dev --only-projects -r --recursive`, ops: opsText},
		"outdated": {allow: npmCommon + ` -r --recursive`, ops: opsText},
		"why":      {allow: npmCommon + ` -r --recursive`, ops: opsText},
		"root":     {allow: npmCommon, ops: opsNone},
	},
}
var yarnSpec = &spec{
	allow: `-v -h`,
	noSub: "yarn without a subcommand installs packages",
	subs: map[string]*spec{
		"list": {allow: `--depth= --pattern= --json`, ops: opsNone},
		"info": {allow: `--json`, ops: opsText},
		"why":  {allow: `--json`, ops: opsText},
	},
}

func init() {
	register(npmSpec, "npm")
	register(pipSpec, "pip", "pip3")
	register(goSpec, "go")
	register(cargoSpec, "cargo")
	register(pnpmSpec, "pnpm")
	register(yarnSpec, "yarn")
}
