package flagspec

import (
	"fmt"
	"strings"
	"testing"
)

// treeString renders trees compactly: "path[h][n][i]" with h hidden, n
// names only, i ignore files honoured, then the exclusions.
func treeString(ts []Tree) string {
	var out []string
	for _, t := range ts {
		s := t.Path + "["
		if t.Hidden {
			s += "h"
		}
		if t.NamesOnly {
			s += "n"
		}
		if t.Ignores {
			s += "i"
		}
		if t.MaxDepth > 0 {
			s += fmt.Sprint(t.MaxDepth)
		}
		s += "]"
		if len(t.ExcludeDirs) > 0 {
			s += fmt.Sprintf(" xd=%v", t.ExcludeDirs)
		}
		if len(t.Include) > 0 || len(t.Exclude) > 0 {
			s += fmt.Sprintf(" in=%v ex=%v first=%v", t.Include, t.Exclude, t.IncludeFirst)
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// Recursive readers report the trees they read: the directories named, or
// the working directory, with what the program skips.
func TestRecursiveReads(t *testing.T) {
	t.Parallel()
	cases := []struct {
		argv  []string
		trees string
	}{
		// grep recursive forms, hidden files included.
		{[]string{"grep", "-r", "KEY", "/home/u"}, "/home/u[h]"},
		{[]string{"grep", "-R", "KEY", "~"}, "~[h]"},
		{[]string{"grep", "--recursive", "KEY", "a", "b"}, "a[h]; b[h]"},
		{[]string{"grep", "--dereference-recursive", "KEY"}, ".[h]"},
		{[]string{"grep", "--recur", "KEY", "d"}, "d[h]"},
		{[]string{"grep", "-d", "recurse", "KEY", "d"}, "d[h]"},
		{[]string{"grep", "--directories=rec", "KEY", "d"}, "d[h]"},
		{[]string{"grep", "-d", "skip", "KEY", "d"}, ""},
		{[]string{"grep", "-rn", "KEY"}, ".[h]"},
		{[]string{"grep", "-rle", "KEY", "d"}, "d[h]"},
		{[]string{"egrep", "-r", "a|b", "/etc"}, "/etc[h]"},
		{[]string{"fgrep", "-r", "x", "/"}, "/[h]"},
		{[]string{"grep", "KEY", "f"}, ""},
		{[]string{"grep", "-rn", "--exclude-dir=node_modules", "--include=*.go", "x", "."}, ".[h] xd=[node_modules] in=[*.go] ex=[] first=true"},
		{[]string{"grep", "-r", "--exclude=.env", "--include=*", "x", "."}, ".[h] in=[*] ex=[.env] first=false"},
		// rg: recursive by default; hidden and ignore handling by flag.
		{[]string{"rg", "foo"}, ".[i]"},
		{[]string{"rg", "foo", "src", "~"}, "src[i]; ~[i]"},
		{[]string{"rg", "-u", "foo", "d"}, "d[]"},
		{[]string{"rg", "-uu", "foo", "d"}, "d[h]"},
		{[]string{"rg", "-uuu", ".", "~"}, "~[h]"},
		{[]string{"rg", "-u", "--unrestricted", "foo"}, ".[h]"},
		{[]string{"rg", "--hidden", "foo"}, ".[hi]"},
		{[]string{"rg", "-.", "foo"}, ".[hi]"},
		{[]string{"rg", "--no-ignore", "foo"}, ".[]"},
		{[]string{"rg", "--no-ignore-vcs", "foo"}, ".[]"},
		{[]string{"rg", "-g", "*.go", "foo"}, ".[h] in=[*.go] ex=[] first=true"},
		{[]string{"rg", "--iglob=src/*.ts", "foo"}, ".[h] in=[*] ex=[] first=true"},
		{[]string{"rg", "-g", "!vendor", "foo"}, ".[i] xd=[vendor] in=[] ex=[vendor] first=false"},
		{[]string{"rg", "--type-add", "e:*.env", "-te", "foo"}, ".[h] in=[*] ex=[] first=false"},
		{[]string{"rg", "-e", "foo", "-e", "bar", "d1", "d2"}, "d1[i]; d2[i]"},
		{[]string{"rg", "--files", "~"}, "~[i]"},
		{[]string{"rg", "--type-list"}, ""},
		{[]string{"rg", "--version"}, ""},
		// ag: recursive by default, as rg; -g lists names (its value is
		// the pattern), --depth N reads N directories below the path.
		{[]string{"ag", "KEY"}, ".[i]"},
		{[]string{"ag", "--hidden", "KEY", "~"}, "~[hi]"},
		{[]string{"ag", "-u", "KEY", "a", "b"}, "a[h]; b[h]"},
		{[]string{"ag", "--unrestricted", "KEY"}, ".[h]"},
		{[]string{"ag", "-U", "KEY", "~"}, "~[]"},
		{[]string{"ag", "-f", "-l", "KEY", "~"}, "~[i]"},
		{[]string{"ag", "-g", "id_", "~"}, "~[ni]"},
		{[]string{"ag", "--filename-pattern=id_"}, ".[ni]"},
		{[]string{"ag", "--depth", "0", "KEY", "~"}, "~[i1]"},
		{[]string{"ag", "--depth", "-1", "KEY", "~"}, "~[i]"},
		{[]string{"ag", "--norecurse", "KEY", "~"}, "~[i1]"},
		{[]string{"ag", "-V"}, ""},
		{[]string{"ag", "--list-file-types"}, ""},
		// fd: names below each path, --search-path and --base-directory.
		{[]string{"fd", "x"}, ".[ni]"},
		{[]string{"fd", "-H", ".", "~"}, "~[hni]"},
		{[]string{"fd", "-u", "id_", "/home/u"}, "/home/u[hn]"},
		{[]string{"fd", "-I", "x", "a", "b"}, "a[n]; b[n]"},
		{[]string{"fd", "--max-depth", "2", "x", "~"}, "~[ni2]"},
		{[]string{"fd", "--search-path", "~/.ssh", "--search-path", "/etc", "x"}, "~/.ssh[ni]; /etc[ni]"},
		{[]string{"fd", "--base-directory", "/home/u", "x"}, "/home/u[ni]"},
		{[]string{"fd", "--base-directory=/home/u", "x", "src", "/etc"}, "/home/u/src[ni]; /etc[ni]"},
		{[]string{"fd", "-V"}, ""},
		// lsattr -R, getfacl -R: names below their operands.
		{[]string{"lsattr", "-R", "~"}, "~[n]"},
		{[]string{"lsattr", "-Ra"}, ".[hn]"},
		{[]string{"lsattr", "-a", "~"}, ""},
		{[]string{"getfacl", "-R", "~"}, "~[hn]"},
		{[]string{"getfacl", "--recursive", "-L", "a", "b"}, "a[hn]; b[hn]"},
		{[]string{"getfacl", "f"}, ""},
		// kubectl -f DIR: its manifests (every level with -R).
		{[]string{"kubectl", "get", "-R", "-f", "~"}, "~[h] in=[*.json *.yaml *.yml] ex=[] first=true"},
		{[]string{"kubectl", "describe", "--filename=/etc"}, "/etc[h1] in=[*.json *.yaml *.yml] ex=[] first=true"},
		{[]string{"kubectl", "get", "pods"}, ""},
		// Listers: names only.
		{[]string{"ls", "-R"}, ".[n]"},
		{[]string{"ls", "-laR", "~"}, "~[hn]"},
		{[]string{"ls", "-AR", "/etc", "/var"}, "/etc[hn]; /var[hn]"},
		{[]string{"ls", "--recursive", "-f", "d"}, "d[hn]"},
		{[]string{"ls", "-la", "~"}, ""},
		{[]string{"tree"}, ".[n]"},
		{[]string{"tree", "-a", "-L", "2", "~"}, "~[hn2]"},
		{[]string{"tree", "--fromfile", "list"}, ""},
		{[]string{"find"}, ".[hn]"},
		{[]string{"find", "~", "-name", "id_*"}, "~[hn]"},
		{[]string{"find", "-L", "a", "b", "-type", "f"}, "a[hn]; b[hn]"},
		{[]string{"find", ".", "-fprint", "out"}, ".[hn]"},
		{[]string{"du", "-a", "~"}, "~[hn]"},
		{[]string{"du", "--all"}, ".[hn]"},
		{[]string{"du", "-sh", "~"}, ""},
		// Depth limits.
		{[]string{"find", "~", "-maxdepth", "1", "-name", ".*"}, "~[hn1]"},
		{[]string{"find", "~", "-maxdepth", "1", "-maxdepth", "3"}, "~[hn3]"},
		{[]string{"find", "~", "-maxdepth", "0"}, ""},
		{[]string{"find", "~", "-maxdepth", "x"}, "~[hn]"},
		{[]string{"find", "~", "-name", "-maxdepth"}, "~[hn]"},
		{[]string{"tree", "-a", "-L", "2", "/"}, "/[hn2]"},
		{[]string{"rg", "--max-depth", "1", "x", "~"}, "~[i1]"},
		{[]string{"rg", "-d", "0", "x", "~"}, ""},
		{[]string{"du", "-a", "-d", "1", "~"}, "~[hn1]"},
		// Content readers that copy or compare.
		{[]string{"diff", "-r", "a", "b"}, "a[h]; b[h]"},
		// git diff --no-index compares directories recursively, with no option.
		{[]string{"git", "diff", "--no-index", ".", "~"}, ".[h]; ~[h]"},
		{[]string{"git", "diff", "--no-index", "--", "/p", "/home/u"}, "/p[h]; /home/u[h]"},
		{[]string{"git", "diff", "--stat", "--no-index", "a", "/"}, "a[h]; /[h]"},
		{[]string{"git", "diff", "a", "--no-index", "/root"}, "a[h]; /root[h]"},
		{[]string{"git", "-C", "/p", "diff", "--no-index", "x", "y"}, "x[h]; y[h]"},
		{[]string{"git", "diff", "--", "a", "~/x"}, "a[h]; ~/x[h]"},
		// Two paths, one outside the work tree: --no-index is implied.
		{[]string{"git", "diff", ".", "~"}, ".[h]; ~[h]"},
		{[]string{"git", "diff", "--stat", "src", "/home/u"}, "src[h]; /home/u[h]"},
		{[]string{"git", "diff", "--", "a", "../../etc"}, "a[h]; ../../etc[h]"},
		{[]string{"git", "diff", "x/../..", "y"}, "x/../..[h]; y[h]"},
		{[]string{"git", "diff", "/tmp/a", "/tmp/b"}, "/tmp/a[h]; /tmp/b[h]"},
		{[]string{"git", "diff", "a", "b"}, ""},
		{[]string{"git", "diff", "HEAD", "src"}, ""},
		{[]string{"git", "diff", "main", "--", "/p/src"}, ""},
		{[]string{"git", "diff", "HEAD~1", "HEAD", "--", "/p/a"}, ""},
		{[]string{"git", "diff", "--cached", "--", "a"}, ""},
		{[]string{"diff", "-ru", "--from-file=~", "d"}, "d[h]; ~[h]"},
		{[]string{"diff", "a", "b"}, "a[h1]; b[h1]"},
		{[]string{"diff", "~", "."}, "~[h1]; .[h1]"},
		{[]string{"cp", "-r", "~/.ssh", "./k"}, "~/.ssh[h]"},
		{[]string{"cp", "-a", "src", "dst"}, "src[h]"},
		{[]string{"cp", "-R", "a", "b", "-t", "d"}, "a[h]; b[h]"},
		{[]string{"cp", "--archive", "~", "bk"}, "~[h]"},
		{[]string{"cp", "f", "g"}, ""},
		{[]string{"tar", "czf", "x.tgz", "~"}, "~[h]"},
		{[]string{"tar", "-czf", "x.tgz", "a", "b"}, "a[h]; b[h]"},
		{[]string{"tar", "--create", "--file=x.tar", "-C", "/", "etc"}, "/etc[h]"},
		{[]string{"tar", "-c", "-f", "-", "."}, ".[h]"},
		{[]string{"tar", "rf", "x.tar", "~/.aws"}, "~/.aws[h]"},
		{[]string{"tar", "--cre", "--file", "x.tar", "--direc=/home/u", "."}, "/home/u/.[h]"},
		{[]string{"tar", "--cre", "--fi", "x.tar", "d"}, "x.tar[h]; d[h]"}, // ambiguous: both may be read
		{[]string{"tar", "-c", "-f", "x.tar", "--exclude", ".git", "src"}, "src[h]"},
		{[]string{"tar", "xzf", "x.tgz"}, ""},
		{[]string{"tar", "-tvf", "x.tar"}, ""},
		{[]string{"zip", "-r", "x.zip", "~"}, "~[h]"},
		{[]string{"zip", "-qr9", "x.zip", "a", "-x", "*.o"}, "a[h]"},
		{[]string{"zip", "x.zip", "a"}, ""},
		{[]string{"rsync", "-a", "~/", "./bk"}, "~/[h]"},
		{[]string{"rsync", "-avz", "--exclude", "x", "~/.ssh", "host:/bk"}, "~/.ssh[h]"},
		{[]string{"rsync", "-a", "host:/x", "./y"}, ""},
		{[]string{"rsync", "f", "g"}, ""},
		{[]string{"scp", "-r", "~", "host:"}, "~[h]"},
		{[]string{"scp", "-P", "22", "-r", "d", "host:x"}, "d[h]"},
		{[]string{"gzip", "-rc", "~"}, "~[h]"},
		{[]string{"zstd", "--recursive", "-c", "d"}, "d[h]"},
		{[]string{"gzip", "-c", "f"}, ""},
		{[]string{"zcat", "-rf", "~"}, "~[h]"},
		{[]string{"zcat", "--recursive", "d"}, "d[h]"},
		{[]string{"zstdcat", "-r", "~"}, "~[h]"},
		{[]string{"gunzip", "-rc", "d"}, "d[h]"},
		{[]string{"zcat", "f.gz"}, ""},
		// git grep: untracked and no-index read the working tree.
		{[]string{"git", "grep", "foo"}, ""},
		{[]string{"git", "grep", "--no-index", "foo"}, ".[h]"},
		{[]string{"git", "grep", "--untracked", "foo", "--", "src"}, "src[hi]"},
		{[]string{"git", "grep", "--untracked", "--no-exclude-standard", "foo"}, ".[h]"},
	}
	for _, c := range cases {
		v := Judge(c.argv)
		if got := treeString(v.RecursiveReads); got != c.trees {
			t.Errorf("%q: trees %q, want %q", c.argv, got, c.trees)
		}
		// Every named root is read as well.
		for _, tr := range v.RecursiveReads {
			if tr.Path != "." && !contains(v.Reads, tr.Path) {
				t.Errorf("%q: root %s not in Reads %q", c.argv, tr.Path, v.Reads)
			}
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Sources of programs that are never read-only reach the credential check:
// they are in Reads (cp /etc/shadow ./x, dd if=/etc/shadow), and their
// other operands stay possible paths (Unplaced).
func TestWriterSources(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd           string
		reads, writes string
	}{
		{"cp /etc/shadow ./x", "/etc/shadow", "./x ./x/shadow"}, // ./x may be a directory
		{"dd if=/etc/shadow of=x bs=1", "/etc/shadow", "x"},
		{"tar czf /tmp/x.tgz -C /home u", "/home/u", "/tmp/x.tgz"},
		{"tar xf a.tar", "a.tar", ""},
		{"zip -r out.zip .env src", ".env src", "out.zip"},
		{"rsync -a --password-file pw /etc/shadow host:/x", "/etc/shadow", ""},
		{"scp ~/.ssh/id_rsa host:", "~/.ssh/id_rsa", ""},
		{"scp host:f ./g", "", "./g"},
	}
	for _, c := range cases {
		v := Judge(strings.Fields(c.cmd))
		if got := strings.Join(v.Reads, " "); got != c.reads {
			t.Errorf("%q: reads %q, want %q", c.cmd, got, c.reads)
		}
		if got := strings.Join(v.Writes, " "); got != c.writes {
			t.Errorf("%q: writes %q, want %q", c.cmd, got, c.writes)
		}
		if v.ReadOnly {
			t.Errorf("%q: read-only", c.cmd)
		}
		if c.cmd[:2] != "cp" && !v.Unplaced {
			t.Errorf("%q: a known writer's operands must stay unplaced", c.cmd)
		}
	}
}

// Environment dumps: what prints environment variables, and what does not.
func TestEnvironmentReads(t *testing.T) {
	t.Parallel()
	dumps := [][]string{
		{"printenv"}, {"printenv", "-0"}, {"printenv", "--null"}, {"printenv", "GITHUB_TOKEN"},
		{"printenv", "HOME", "AWS_SECRET_ACCESS_KEY"}, {"printenv", "anthropic_api_key"}, {"printenv", "DB_PASSWORD"},
		{"printenv", "NPM_TOKEN"}, {"printenv", "--", "OPENAI_API_KEY"}, {"printenv", "x" + Dynamic},
		{"env"}, {"env", "-0"}, {"env", "-u", "PATH"}, {"env", "--unset=PATH"}, {"env", "FOO=1"}, {"env", "-uX", "A=b"},
		{"export"}, {"export", "-p"}, {"declare"}, {"declare", "-p"}, {"declare", "-x"}, {"declare", "-px"},
		{"typeset", "-p"}, {"readonly"}, {"readonly", "-p"}, {"local"}, {"declare", "-p", "GH_TOKEN"},
		{"set"},
		{"jq", "-n", "env"}, {"jq", "-n", "$ENV"}, {"jq", "-n", "$ENV.HOME"}, {"jq", "env.PATH"}, {"jq", "-r", `"\(env.TOKEN)"`},
		{"jq", "--arg", "x", "y", "-n", "[env]"}, {"gojq", "-n", "env"},
		{"awk", `BEGIN{for(k in ENVIRON) print k, ENVIRON[k]}`}, {"gawk", `BEGIN{print ENVIRON["HOME"]}`},
		{"mawk", "-F:", `{print ENVIRON["X"]}`, "f"},
		{"ps", "e"}, {"ps", "eww"}, {"ps", "auxe"}, {"ps", "axeww"}, {"ps", "-E"}, {"ps", "-o", "pid", "e"},
		{"python3", "-c", "import os; print(os.environ)"}, {"python", "-c", "import os;print(os.getenv('TOKEN'))"},
		{"perl", "-e", "print %ENV"}, {"perl", "-le", "print $ENV{HOME}"}, {"ruby", "-e", "p ENV"},
		{"node", "-e", "console.log(process.env)"}, {"node", "--eval=console.log(process.env.X)"},
		{"node", "-p", "process.env"}, {"php", "-r", "print_r(getenv());"}, {"deno", "eval", "console.log(Deno.env.toObject())"},
		{"bun", "-e", "console.log(Bun.env)"},
		// Every interpreter of the table with inline code (runscode.go).
		{"nodejs", "-e", "console.log(process.env)"}, {"julia", "-e", "println(ENV)"}, {"Rscript", "-e", "Sys.getenv()"},
		{"elixir", "-e", "IO.inspect System.get_env()"}, {"lua", "-e", "print(os.getenv('TOKEN'))"},
		{"pwsh", "-Command", "Get-ChildItem env:"}, {"raku", "-e", "say %*ENV"}, {"guile", "-c", "(display (environ))"},
		{"expect", "-c", "puts $env(HOME)"}, {"pypy3", "-c", "import os; print(os.environ)"},
	}
	for _, argv := range dumps {
		if v := Judge(argv); v.Environment == "" {
			t.Errorf("%q: not an environment read", argv)
		}
	}
	clean := [][]string{
		{"printenv", "HOME"}, {"printenv", "PATH", "PWD", "SSH_AUTH_SOCK"}, {"printenv", "OLDPWD"},
		{"env", "-i"}, {"env", "-"}, {"env", "--ignore-environment"}, {"env", "-i", "FOO=1"},
		{"export", "FOO=1"}, {"declare", "-f"}, {"declare", "-F"}, {"declare", "-p", "HOME"}, {"declare", "-i", "n=1"},
		{"set", "-o"}, {"set", "-e"}, {"set", "--", "a"},
		{"jq", ".env", "package.json"}, {"jq", "-r", ".config.env"}, {"jq", ".", "f"}, {"jq", "-f", "prog.jq"},
		{"awk", "{print $1}", "f"}, {"awk", "-v", "x=1", "{print x}"},
		{"ps", "aux"}, {"ps", "-ef"}, {"ps", "-eo", "pid,etime,cmd"}, {"ps", "axo", "pid,etime"}, {"ps", "-e"},
		{"ps", "--sort", "-etime"}, {"ps", "-u", "eve"}, {"ps", "-p", "1", "-o", "user"},
		{"python3", "script.py", "environ"}, {"python3", "-c", "print(1)"}, {"node", "app.js", "--env=prod"},
		{"perl", "-ne", "print if /x/", "f"}, {"cat", "env"}, {"grep", "environ", "f"},
	}
	for _, argv := range clean {
		if v := Judge(argv); v.Environment != "" {
			t.Errorf("%q: environment read %q", argv, v.Environment)
		}
	}
}
