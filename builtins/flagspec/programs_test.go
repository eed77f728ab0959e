package flagspec

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "grep -E foo|bar file.txt", ro: true, reads: []string{"file.txt"}},
		{cmd: "grep -l needle a.go b.go", ro: true, reads: []string{"a.go", "b.go"}},
		{cmd: "grep -f patterns.txt input.txt", ro: true, reads: []string{"patterns.txt", "input.txt"}},
		{cmd: "grep -e a -e b f", ro: true, reads: []string{"f"}},
		{cmd: "grep --include=*.go -r func .", ro: true, reads: []string{"."}},
		{cmd: "grep -rn TODO src", ro: true, reads: []string{"src"}},
		{cmd: "grep -C3 x f", ro: true},
		{cmd: "grep -3 x f", ro: true},
		{cmd: "egrep a f", ro: true},
		{cmd: "fgrep -x a f", ro: true},
		{cmd: "grep --frob x", why: "--frob"},
		// rgrep is "exec grep -r "$@"" (issue 26): judged as grep -r.
		{cmd: "rgrep TODO src", ro: true, reads: []string{"src"}},
		{cmd: "rgrep -f pats.txt x", ro: true, reads: []string{"pats.txt", "x"}},
		{cmd: "rgrep --frob x", why: "--frob"},
		{cmd: "rg TODO", ro: true, reads: none},
		{cmd: "rg -g *.rs unsafe", ro: true},
		{cmd: "rg -n -i --hidden foo src tests", ro: true, reads: []string{"src", "tests"}},
		{cmd: "rg --files src", ro: true, reads: []string{"src"}},
		{cmd: "rg -uu foo", ro: true},
		{cmd: "rg --type-list", ro: true},
		{cmd: "rg AWS_SECRET .env.local", ro: true, reads: []string{".env.local"}},
		{argv: []string{"rg", "--pre", "sh -c 'touch /tmp/p'", "--pre-glob", "*", "x"}, why: "preprocessor"},
		{cmd: "rg --pre=cat x", why: "preprocessor"},
		{cmd: "rg -z x", why: "decompression"},
		{cmd: "rg -iz x", why: "decompression"},
		{cmd: "rg --search-zip x", why: "decompression"},
		{cmd: "rg --hostname-bin=sh x", why: "runs a program"},
		{cmd: "find src -maxdepth 2 -type d", ro: true, reads: []string{"src"}},
		{cmd: "find . -name *.go -newer go.mod -print0", ro: true, reads: []string{".", "go.mod"}},
		{cmd: "find -L . -mtime -7 ( -name a -o -name b )", ro: true},
		{cmd: "find / -name *.pem", ro: true, reads: []string{"/"}},
		{cmd: "find . -printf %p\\n", ro: true},
		{cmd: "find", ro: true},
		{cmd: "find . -delete", why: "deletes"},
		{cmd: "find -L . -name *.log -delete", why: "deletes"},
		{cmd: "find . -name file.txt -exec rm {} ;", why: "runs a command"},
		{cmd: "find . -execdir python3 {} ;", why: "runs a command"},
		{cmd: "find . -okdir python3 {} ;", why: "runs a command"},
		{cmd: "find . -ok rm {} ;", why: "runs a command"},
		{cmd: "find . -fprint /etc/passwd", why: "writes a file", writes: []string{"/etc/passwd"}},
		{cmd: "find . -fprintf out %p", why: "writes a file", writes: []string{"out"}},
		{cmd: "find . -fls out", why: "writes a file"},
		{cmd: "find . -frobnicate", why: "-frobnicate"},
		{cmd: "find ~/.ssh -delete", why: "deletes"},
		{cmd: "tree -L 2", ro: true},
		{cmd: "tree -a -I node_modules", ro: true},
		{cmd: "tree -J", ro: true},
		{cmd: "tree -H . ", ro: true},
		{cmd: "tree -H . -o index.html", why: "writes the listing", writes: []string{"index.html"}},
		{cmd: "tree -oout", writes: []string{"out"}, why: "writes"},
		{cmd: "tree -R -H x", why: "00Tree"},
	})
}

func TestText(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "sed -n 1,5p file.txt", ro: true, reads: []string{"file.txt"}},
		{cmd: "sed -n 10p file.txt", ro: true},
		{cmd: "sed s/foo/bar/ file.txt", ro: true},
		{cmd: "sed -e s/a/b/g -e /x/d f", ro: true, reads: []string{"f"}},
		{cmd: "sed -E s|a+|b|gI f", ro: true},
		{argv: []string{"sed", "/start/,/end/{s/a/b/;p}", "f"}, ro: true},
		{argv: []string{"sed", "1r notes.txt", "file.txt"}, ro: true, reads: []string{"notes.txt", "file.txt"}},
		{argv: []string{"sed", "$!N;s/\\n/ /", "f"}, ro: true},
		{argv: []string{"sed", "y/abc/xyz/", "f"}, ro: true},
		{argv: []string{"sed", "/x/a\\\nadded", "f"}, ro: true},
		{argv: []string{"sed", "s/a/b/w out.txt", "file.txt"}, why: "s///w", writes: []string{"out.txt"}},
		{argv: []string{"sed", "-n", "s/a/b/w out.txt", "file.txt"}, why: "s///w"},
		{argv: []string{"sed", "s/x/y/gw /home/user/.bashrc", "file.txt"}, why: "writes", writes: []string{"/home/user/.bashrc"}},
		{argv: []string{"sed", "-n", "1w /tmp/out", "file.txt"}, why: "command w", writes: []string{"/tmp/out"}},
		{argv: []string{"sed", "1W /tmp/out", "f"}, why: "command W"},
		{argv: []string{"sed", "s/x/y/;w .claude/settings.json"}, why: "command w"},
		{argv: []string{"sed", "/x/!w out"}, why: "command w"},
		{argv: []string{"sed", "1e id", "f"}, why: "command e"},
		{argv: []string{"sed", "s/.*/id/e", "f"}, why: "s///e"},
		{argv: []string{"sed", "s/a/b/ge", "f"}, why: "s///e"},
		{argv: []string{"sed", "s/a\\/w x/b/", "f"}, ro: true},
		{argv: []string{"sed", "s/a/b", "f"}, why: "unterminated"},
		{argv: []string{"sed", "k", "f"}, why: "command k"},
		{cmd: "sed -f edits.sed file.txt", why: "script from a file"},
		{cmd: "sed --file=edits.sed file.txt", why: "script from a file"},
		// in-place: a filesystem command
		{argv: []string{"sed", "-i", "s/a/b/", "file.txt"}, why: "in place", reads: []string{"file.txt"}, writes: []string{"file.txt"}, fs: true},
		{argv: []string{"sed", "--in-place", "s/a/b/", "file.txt"}, why: "in place", writes: []string{"file.txt"}, fs: true},
		{argv: []string{"sed", "--in-pl=.bak", "s/a/b/", "f"}, why: "in place", fs: true},
		{argv: []string{"sed", "-i.bak", "s/a/b/", "f"}, why: "in place", writes: []string{"f"}, fs: true},
		{argv: []string{"sed", "-E", "-i", "", "s/a/b/", "file.txt"}, why: "in place", writes: []string{"s/a/b/", "file.txt"}, fs: true},
		{argv: []string{"sed", "-ni", "s/x/y/p", "file.txt"}, why: "in place", writes: []string{"file.txt"}, fs: true},
		{argv: []string{"sed", "-i", "1e id", "f"}, why: "in place", fs: false},
		{argv: []string{"sed", "-i", "-f", "x.sed", "f"}, fs: false},
		{argv: []string{"sed", "-i", "s/a/b/w log", "f"}, writes: []string{"log", "f"}, fs: true},
		{argv: []string{"sed", "-i", "-Q", "s/a/b/", "f"}, fs: false},

		{argv: []string{"awk", "{print $1}", "access.log"}, ro: true, reads: []string{"access.log"}},
		{argv: []string{"awk", "-F:", "-v", "OFS=,", "{print $1,$3}", "/etc/passwd"}, ro: true, reads: []string{"/etc/passwd"}},
		{argv: []string{"awk", "NR==1", "n=3", "f"}, ro: true, reads: []string{"f"}},
		{argv: []string{"awk", "BEGIN{system(\"rm -f x\")}"}, why: "system"},
		{argv: []string{"awk", "{print | \"sh\"}"}, why: "pipe"},
		{argv: []string{"awk", "{print > \"out\"}"}, why: "writes a file"},
		{argv: []string{"awk", "BEGIN{\"id\" | getline x}"}, why: "pipe"},
		{argv: []string{"awk", "{getline line < \"f\"}"}, why: "getline"},
		{argv: []string{"awk", "@load \"x\"; {print}"}, why: "@ forms"},
		{argv: []string{"awk", "BEGIN{f=\"sys\" \"tem\"; @f(\"id\")}"}, why: "@ forms"},
		{cmd: "awk -f prog.awk f", why: "program code"},
		{cmd: "awk", why: "no program"},
		{argv: []string{"gawk", "-e", "{print}", "f"}, ro: true, reads: []string{"f"}},

		{cmd: "sort names.txt", ro: true, reads: []string{"names.txt"}},
		{cmd: "sort -u -k2,2n -t, a b", ro: true, reads: []string{"a", "b"}},
		{cmd: "sort --output=names.txt names.txt", why: "--output", writes: []string{"names.txt"}},
		{cmd: "sort -o out in", why: "option -o", writes: []string{"out"}},
		{cmd: "sort -uoout in", why: "option -o", writes: []string{"out"}},
		{cmd: "sort -S1 --compress-program=sh names.txt", why: "compress"},
		{cmd: "sort -T /tmp x", why: "temporary"},
		{cmd: "uniq -c sorted.txt", ro: true, reads: []string{"sorted.txt"}},
		{cmd: "uniq input.txt output.txt", why: "output file", reads: []string{"input.txt"}, writes: []string{"output.txt"}},
		{cmd: "uniq -c counts.txt summary.txt", why: "output file"},
		{cmd: "uniq - out", why: "output file"},
		// xxd IN OUT writes OUT (with -r too); yq -i rewrites its files.
		{cmd: "xxd in out", why: "output file", writes: []string{"out"}},
		{cmd: "xxd -r dump .permopa/settings.yaml", why: "output file", writes: []string{".permopa/settings.yaml"}},
		{cmd: "xxd -r -p hex.txt bin", why: "output file", writes: []string{"bin"}},
		{cmd: "xxd in -v", why: "output file", writes: []string{"-v"}},
		{cmd: "yq -i .a=1 f.yaml", why: "writes files", writes: []string{"f.yaml"}},
		{cmd: "yq --inplace . a.yml b.yml", why: "writes files", writes: []string{"a.yml", "b.yml"}},
		{cmd: "yq eval -i . .permopa/settings.yaml", why: "writes files", writes: []string{".permopa/settings.yaml"}},
		{cmd: "cut -d: -f1 /etc/passwd", ro: true},
		{cmd: "tr -d \\r", ro: true, reads: none},
		{cmd: "tr a-z A-Z", ro: true, reads: none},
		{argv: []string{"jq", ".name", "package.json"}, ro: true, reads: []string{"package.json"}},
		{argv: []string{"jq", "-r", "--arg", "n", "v", ".[$n]", "f.json"}, ro: true, reads: []string{"f.json"}},
		{argv: []string{"jq", "-n", "--slurpfile", "a", "a.json", "$a"}, ro: true, reads: []string{"a.json"}},
		{argv: []string{"jq", "-f", "prog.jq", "in.json"}, why: "from a file", reads: []string{"prog.jq"}},
		{argv: []string{"jq", "-n", "import \"../.docker/config\" as $c; $c"}, why: "modules"},
		{argv: []string{"jq", "-n", "include \"x\"; ."}, why: "modules"},
		{argv: []string{"jq", Dynamic, "f"}, why: "run time"},
		{argv: []string{"awk", "BEGIN{ARGV[1]=\"/etc/shadow\"; ARGC=2} {print}"}, why: "ARGV"},
		{argv: []string{"jq", "-n", "$ARGS", "--args", "a", "b"}, ro: true, reads: none},
	})
}

func TestCoreutils(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "ls", ro: true},
		{cmd: "ls -1 a.go b.go", ro: true, reads: []string{"a.go", "b.go"}},
		{cmd: "ls -la ~", ro: true, reads: []string{"~"}},
		{cmd: "ls --color=auto -lh", ro: true},
		{cmd: "cat README.md", ro: true, reads: []string{"README.md"}},
		{cmd: "cat -n a b", ro: true},
		{cmd: "head -n 20 main.go", ro: true},
		{cmd: "tail -n 50 app.log", ro: true},
		{cmd: "tail -f app.log", ro: true},
		{cmd: "tail -F --pid=12 x", ro: true},
		{cmd: "tac app.log", ro: true},
		{cmd: "nl -ba main.go", ro: true},
		{cmd: "wc -c a.txt b.txt", ro: true},
		{cmd: "stat -c %s go.mod", ro: true, reads: []string{"go.mod"}},
		{cmd: "du -sh .", ro: true},
		{cmd: "df -h", ro: true},
		{cmd: "df --output=source,pcent", ro: true},
		{cmd: "pwd", ro: true},
		{cmd: "pwd x", why: "operand"},
		{cmd: "which -a go", ro: true, reads: none},
		{cmd: "type ls", ro: true},
		{cmd: "file -b x.bin", ro: true},
		{cmd: "file -C -m magic", why: "compiles"},
		{cmd: "basename /a/b.go .go", ro: true, reads: none},
		{cmd: "dirname /a/b", ro: true},
		{cmd: "realpath --relative-to=. x", ro: true, reads: []string{".", "x"}},
		{cmd: "readlink -f x", ro: true},
		{cmd: "echo hello world", ro: true},
		{cmd: "echo -n --output=x", ro: true},
		{cmd: "printf %s\\n a b", ro: true},
		{cmd: "printf -v PATH %s /tmp/evil", why: "assigns a shell variable"},
		{cmd: "true", ro: true}, {cmd: "false", ro: true},
		{cmd: "test -f go.mod", ro: true},
		{cmd: "[ -d x ]", ro: true},
		{cmd: "cd src", ro: true, reads: []string{"src"}},
		{cmd: "cd", ro: true},
		{cmd: "diff -u a b", ro: true, reads: []string{"a", "b"}},
		{cmd: "diff -ruN a b", ro: true},
		{cmd: "cmp a b", ro: true},
		{cmd: "comm -12 a b", ro: true},
		{cmd: "paste -sd, f", ro: true},
		{cmd: "column -t -s, f", ro: true},
		{cmd: "fold -w80 f", ro: true},
		{cmd: "od -An -tx1 f", ro: true},
		{cmd: "xxd f", ro: true, reads: []string{"f"}},
		{cmd: "xxd -ps -c 32 f", ro: true},
		{cmd: "xxd -r -p f", ro: true},
		{cmd: "xxd in out", why: "output file"},
		{cmd: "xxd in -v", why: "output file"},
		{cmd: "xxd -rn - -i", why: "-rn"},
		{cmd: "xxd -l 64 -c 16 f", ro: true},
		{cmd: "hexdump -C f", ro: true},
		{cmd: "sha256sum a b", ro: true},
		{cmd: "md5sum -c sums", ro: true},
		{cmd: "base64 file.bin", ro: true, reads: []string{"file.bin"}},
		{cmd: "base64 -d -w0 x", ro: true},
		{cmd: "base64 -o out.bin in.txt", why: "writes", writes: []string{"out.bin"}},
		{cmd: "base64 --output=out.bin in.txt", why: "writes"},
		{cmd: "base64 --out=out.bin in.txt", why: "--output"},
		{cmd: "date", ro: true},
		{cmd: "date +%s", ro: true},
		{cmd: "date -u -d @0 +%F", ro: true},
		{cmd: "date --iso-8601=seconds", ro: true},
		{cmd: "date -s 2020-01-01", why: "clock"},
		{cmd: "date --set=2020-01-01", why: "clock"},
		{cmd: "date --se=x", why: "clock"},
		{cmd: "date 010100002020", why: "clock"},
		{cmd: "uname -a", ro: true},
		{cmd: "whoami", ro: true},
		{cmd: "id", ro: true},
		{cmd: "id -un", ro: true},
		{cmd: "hostname", ro: true},
		{cmd: "hostname -f", ro: true},
		{cmd: "hostname evil", why: "sets the host name"},
		{cmd: "hostname -F f", why: "sets the host name"},
		{cmd: "env", ro: true},
		{cmd: "env -0", ro: true},
		{cmd: "env FOO=bar ls", why: "runs the command"},
		{cmd: "env -S ls", why: "runs a command"},
		{cmd: "printenv HOME", ro: true},
		{cmd: "ps aux", ro: true},
		{cmd: "ps -ef --forest", ro: true},
		{cmd: "uptime", ro: true},
		{cmd: "free -h", ro: true},
		{cmd: "nproc", ro: true},
		{cmd: "seq 1 10", ro: true},
		{cmd: "seq -5 5", ro: true},
		{cmd: "sleep 1", ro: true},
		{cmd: "history", ro: true},
		{cmd: "history 20", ro: true},
		{cmd: "history -c", ro: true}, // clears the list: nothing written, now or at exit
		{cmd: "history -a", why: "history"},
		{cmd: "history -s x", why: "history"},
		{cmd: "history -w f", why: "history"},
		{cmd: "man ls", ro: true},
		{cmd: "man -k printf", ro: true},
		{argv: []string{"man", "--html=touch /tmp/pwned", "ls"}, why: "browser"},
		{cmd: "man -Hfirefox ls", why: "browser"},
		{cmd: "man -P cat ls", why: "pager"},
		{cmd: "man --pager=sh ls", why: "pager"},
		{cmd: "man -l x.1", why: "troff"},
		{cmd: "tee /dev/null", ro: true},
		{cmd: "tee -a /dev/null /dev/null", ro: true},
		{cmd: "tee out.txt", why: "writes", writes: []string{"out.txt"}},
		{cmd: "tee -a ~/.bashrc", writes: []string{"~/.bashrc"}, why: "writes"},
		{cmd: "less f", ro: true, reads: []string{"f"}},
		{cmd: "more f", ro: true, reads: []string{"f"}},
	})
}

func TestFS(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "mkdir -p a/b c", why: "mkdir", writes: []string{"a/b", "c"}, fs: true},
		{cmd: "mkdir -m 700 d", writes: []string{"d"}, fs: true},
		{cmd: "mkdir --frob d", fs: false},
		{cmd: "touch x", writes: []string{"x"}, fs: true},
		{cmd: "touch -r ref -c x", reads: []string{"ref"}, writes: []string{"x"}, fs: true},
		{cmd: "rm x", writes: []string{"x"}, fs: true},
		{cmd: "rm -rf /", writes: []string{"/"}, fs: true, rec: true},
		{cmd: "rm -R build", fs: true, rec: true},
		{cmd: "rm --recursive --force build", fs: true, rec: true},
		{cmd: "rm --rec build", fs: true, rec: true},
		{cmd: "rm -f -- -x", writes: []string{"-x"}, fs: true},
		{cmd: "rm -rf ~/.ssh", writes: []string{"~/.ssh"}, fs: true, rec: true},
		{cmd: "rm -Z x", fs: false, writes: []string{"x"}},
		{cmd: "rm -rfZ ~/.ssh", fs: false, writes: []string{"~/.ssh"}, rec: true},
		{argv: []string{"rm", Dynamic, "x"}, fs: false, writes: []string{Dynamic, "x"}},
		{argv: []string{"rm", "--", Dynamic}, fs: true, writes: []string{Dynamic}},
		{cmd: "rmdir a/b", writes: []string{"a/b"}, fs: true},
		{cmd: "rmdir -p a/b/c", writes: []string{"a/b/c", "a/b", "a"}, fs: true},
		{cmd: "rmdir -p /x/y", writes: []string{"/x/y", "/x"}, fs: true},
		{cmd: "mv -T a b", writes: []string{"a", "b"}, fs: true},
		{cmd: "cp -T a b", reads: []string{"a"}, writes: []string{"b"}, fs: true},
		{cmd: "mv a b", writes: []string{"a", "b", "b/a"}, reads: []string{"a"}, fs: true}, // a moved file is read (issue 23),
		{cmd: "mv a b dir", writes: []string{"a", "b", "dir", "dir/a", "dir/b"}, fs: true},
		{cmd: "mv -t dir a b", writes: []string{"dir", "a", "b", "dir/a", "dir/b"}, fs: true},
		{cmd: "mv --target-directory=dir a", writes: []string{"dir", "a", "dir/a"}, fs: true},
		{cmd: "cp a b", reads: []string{"a"}, writes: []string{"b", "b/a"}, fs: true},
		{cmd: "cp -r a b dir", reads: []string{"a", "b"}, writes: []string{"dir", "dir/a", "dir/b"}, fs: true},
		{cmd: "cp -t dir a b", reads: []string{"a", "b"}, writes: []string{"dir", "dir/a", "dir/b"}, fs: true},
		{cmd: "cp --target-directory dir a", reads: []string{"a"}, writes: []string{"dir", "dir/a"}, fs: true},
		{cmd: "cp -al a b", reads: []string{"a"}, writes: []string{"b", "a", "b/a"}, fs: true},
		{cmd: "cp --frob a b", fs: false},
		{cmd: "ln -s target link", writes: []string{"link", "link/target"}, fs: true},
		{cmd: "ln -sf /dev/null ~/.bash_history", writes: []string{"~/.bash_history", "~/.bash_history/null"}, fs: true},
		{cmd: "ln -s ~/.bashrc link", writes: []string{"link", "link/.bashrc"}, fs: true},
		{cmd: "ln -s /etc/passwd", writes: []string{"passwd"}, fs: true},
		{cmd: "ln -s a b dir", writes: []string{"dir", "dir/a", "dir/b"}, fs: true},
		{cmd: "ln -st dir a b", writes: []string{"dir", "dir/a", "dir/b"}, fs: true},
		{cmd: "ln target link", writes: []string{"link", "link/target", "target"}, fs: true},
	})
}

// Writers whose operands are write targets, so that dangerous-path checks
// and the working-directory test see them (issue: "chmod 777
// ~/.ssh/authorized_keys" under a chmod allow rule).
func TestWritersTargets(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "chmod 777 ~/.ssh/authorized_keys", why: "modes", writes: []string{"~/.ssh/authorized_keys"}, fs: true},
		{cmd: "chmod +x a b", writes: []string{"a", "b"}, fs: true},
		{cmd: "chmod -R u=rwX,go= dir", writes: []string{"dir"}, fs: true},
		{cmd: "chmod -x script.sh", writes: []string{"script.sh"}, fs: true},
		{cmd: "chmod -rwx f", writes: []string{"f"}, fs: true},
		{cmd: "chmod --reference=ref f g", reads: []string{"ref"}, writes: []string{"f", "g"}, fs: true},
		{cmd: "chmod -v 600 -- -f", writes: []string{"-f"}, fs: true},
		{cmd: "chmod -0755 f", writes: []string{"f"}, fs: false},
		{cmd: "chmod --frob 600 ~/.bashrc", writes: []string{"600", "~/.bashrc"}, fs: false},
		{cmd: "chown root:root /etc/sudoers", why: "owners", writes: []string{"/etc/sudoers"}, fs: true},
		{cmd: "chown -R u .", writes: []string{"."}, fs: true},
		{cmd: "chown --from=a b ~/.bashrc", writes: []string{"~/.bashrc"}, fs: true},
		{cmd: "chgrp -h staff link", why: "groups", writes: []string{"link"}, fs: true},
		{cmd: "chgrp --reference=r a", reads: []string{"r"}, writes: []string{"a"}, fs: true},
		{cmd: "truncate -s 0 ~/.bash_history", writes: []string{"~/.bash_history"}, fs: true},
		{cmd: "truncate --size=+1K -c a b", writes: []string{"a", "b"}, fs: true},
		{cmd: "truncate -r ref out", reads: []string{"ref"}, writes: []string{"out"}, fs: true},
		{cmd: "mkfifo -m 600 p", writes: []string{"p"}, fs: true},
		{cmd: "mknod dev c 1 1", writes: []string{"dev"}, fs: false},
		{cmd: "mknod -m 600 p p", writes: []string{"p"}, fs: false},
		{cmd: "shred -u -n 3 secret", writes: []string{"secret"}, fs: true},
		{cmd: "shred --random-source=/dev/urandom f", writes: []string{"f"}, fs: true},
		{cmd: "unlink f", writes: []string{"f"}, fs: true},
		{cmd: "link ~/.bashrc b", writes: []string{"~/.bashrc", "b"}, fs: true, links: []string{"b=~/.bashrc"}},
		{cmd: "install -m 755 tool ~/.local/bin/tool", reads: []string{"tool"}, writes: []string{"~/.local/bin/tool", "~/.local/bin/tool/tool"}, fs: true},
		{cmd: "install a b dir", reads: []string{"a", "b"}, writes: []string{"dir", "dir/a", "dir/b"}, fs: true},
		{cmd: "install -t dir a", reads: []string{"a"}, writes: []string{"dir", "dir/a"}, fs: true},
		{cmd: "install -d a b", writes: []string{"a", "b"}, fs: true},
		{cmd: "install -DTm644 x .git/hooks/pre-commit", writes: []string{".git/hooks/pre-commit"}, fs: true},
		{cmd: "install -s a b", fs: false, writes: []string{"b", "b/a"}},
		{cmd: "install --strip-program=sh a b", fs: false},
		{cmd: "split -l 10 big", reads: []string{"big"}, writes: []string{"x*"}, fs: true},
		{cmd: "split -a1 -l1 f .bashr", reads: []string{"f"}, writes: []string{".bashr*"}, fs: true},
		{cmd: "split -b 1M f ~/.ssh/part", writes: []string{"~/.ssh/part*"}, fs: true},
		{cmd: "split -1 f out", writes: []string{"out*"}, fs: true},
		{cmd: "split --filter=sh f", fs: false},
		{cmd: "csplit f /x/", reads: []string{"f"}, writes: []string{"xx*"}, fs: true},
		{cmd: "csplit -f ~/.ssh/k f 3", writes: []string{"~/.ssh/k*"}, fs: true},
		{cmd: "setfacl -m u:x:rwx ~/.ssh", why: "access control", writes: []string{"~/.ssh"}, fs: false},
		{cmd: "setfacl -R -b dir", writes: []string{"dir"}, fs: false},
		{cmd: "chattr +i f", writes: []string{"+i", "f"}, fs: false},
		{cmd: "chattr -i ~/.bashrc", writes: []string{"~/.bashrc"}, fs: false},
		// A pager's log file and an archive's extraction directory.
		{cmd: "less -o ~/.bashrc notes.txt", why: "log file", reads: []string{"notes.txt"}, writes: []string{"~/.bashrc"}},
		{cmd: "less --log-file=out.log f", why: "log file", writes: []string{"out.log"}},
		{cmd: "zless -O .git/hooks/pre-commit f.gz", why: "log file", writes: []string{".git/hooks/pre-commit"}},
		{cmd: "less -N f", ro: true, writes: none},
		{cmd: "unzip a.zip -d .git/hooks", why: "extracts", reads: []string{"a.zip"}, writes: []string{".git/hooks"}},
		{cmd: "unzip -oq -d ~/.ssh a.zip", why: "extracts", writes: []string{"~/.ssh"}},
		{cmd: "unzip -l a.zip -d x", ro: true, writes: none},
	})
}

// The links, moves and link-keeping copies a command makes: later paths
// under a link name lead to the target.
func TestLinks(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "ln -s /etc nl", links: []string{"nl>/etc", "nl/etc>/etc"}, fs: true},
		{cmd: "ln -sT /etc nl", links: []string{"nl>/etc"}, fs: true},
		{cmd: "ln -sfn ../lib cur", links: []string{"cur>../lib", "cur/lib>../lib"}, fs: true},
		{cmd: "ln -s ~/.ssh/id_rsa", links: []string{"id_rsa>~/.ssh/id_rsa"}, fs: true},
		{cmd: "ln -sr a/b c/d", links: []string{"c/d>>a/b", "c/d/b>>a/b"}, fs: true},
		{cmd: "ln -s a b dir/", links: []string{"dir/a>a", "dir/b>b"}, fs: true},
		{cmd: "ln -st dir /x/a b", links: []string{"dir/a>/x/a", "dir/b>b"}, fs: true},
		{cmd: "ln --target-directory=/ -s x", links: []string{"/x>x"}, fs: true},
		{cmd: "ln ~/.bashrc b", writes: []string{"b", "b/.bashrc", "~/.bashrc"}, links: []string{"b=~/.bashrc", "b/.bashrc=~/.bashrc"}, fs: true},
		{cmd: "cp -s /etc/passwd p", links: []string{"p>>/etc/passwd", "p/passwd>>/etc/passwd"}, fs: true},
		{cmd: "cp -l a b", links: []string{"b=a", "b/a=a"}, fs: true},
		{cmd: "cp -r src dst", links: []string{"dst=src", "dst/src=src"}, fs: true},
		{cmd: "cp -a x y z", links: []string{"z/x=x", "z/y=y"}, fs: true},
		{cmd: "cp -PT l m", links: []string{"m=l"}, fs: true},
		{cmd: "cp -t d -R s", links: []string{"d/s=s"}, fs: true},
		{cmd: "cp a b", links: none, fs: true},
		{cmd: "cp -L a b", links: none, fs: true},
		{cmd: "mv l x", links: []string{"x=l", "x/l=l"}, fs: true},
		{cmd: "mv -T l x", links: []string{"x=l"}, fs: true},
		{cmd: "mv a b d", links: []string{"d/a=a", "d/b=b"}, fs: true},
		{cmd: "mv -t d a", links: []string{"d/a=a"}, fs: true},
	})
}

func TestPackagesAndTools(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "npm list", ro: true, sub: "ls"}, // the command npm runs for list
		{cmd: "npm ls --depth=0", ro: true, sub: "ls"},
		{cmd: "npm ls -g --json", ro: true},
		{cmd: "npm view react version", ro: true, sub: "view"},
		{cmd: "npm outdated", ro: true},
		{cmd: "npm --version", ro: true},
		{cmd: "npm -v", ro: true},
		{cmd: "npm version", ro: true},
		{cmd: "npm version patch", why: "operand"},
		{cmd: "npm config get registry", ro: true, sub: "config get"},
		{cmd: "npm config set registry x", why: "not in the read-only", sub: "config set"},
		{cmd: "npm audit", ro: true},
		{cmd: "npm audit fix", why: "operand"},
		{cmd: "npm install", why: "install", sub: "install"},
		{cmd: "npm i -D x", why: "install", sub: "install"}, // npm runs install for i
		{cmd: "npm run build", why: "script", sub: "run"},
		{cmd: "npm frob", why: "not in the read-only", sub: "frob"},
		{cmd: "pip list", ro: true, sub: "list"},
		{cmd: "pip list --format=json", ro: true},
		{cmd: "pip list --outdated", ro: true},
		{cmd: "pip3 list", ro: true},
		{cmd: "pip show requests", ro: true, sub: "show"},
		{cmd: "pip freeze", ro: true},
		{cmd: "pip --version", ro: true},
		{cmd: "pip -V", ro: true},
		{cmd: "pip install x", why: "install", sub: "install"},
		{cmd: "pip list --log=x", why: "--log"},
		{cmd: "node --version", ro: true},
		{cmd: "node -v", ro: true},
		{cmd: "node server.js", why: "runs code"},
		{cmd: "node -v x.js", why: "runs code"},
		{cmd: "python --version", ro: true},
		{cmd: "python -V", ro: true},
		{cmd: "python3 --version", ro: true},
		{cmd: "python -v", why: "runs code"},
		{cmd: "python -m pip list", why: "runs code"},
		{cmd: "ruby -v", why: "runs code"},
		{cmd: "ruby --version", ro: true},
		{cmd: "bash --version", ro: true},
		{cmd: "bash script.sh", why: "shell"},
		{cmd: "sh --version", why: "shell"},
		{cmd: "go version", ro: true, sub: "version"},
		{cmd: "go env GOPATH", ro: true},
		{cmd: "go env -json", ro: true},
		{cmd: "go env -w GOPATH=x", why: "go env file"},
		{cmd: "go list -m all", ro: true},
		{cmd: "go list -json ./...", ro: true},
		{cmd: "go list -f {{.Dir}} ./...", ro: true},
		{cmd: "go list -export ./...", why: "builds"},
		{cmd: "go list -mod=mod ./...", why: "go.mod"},
		{cmd: "go doc fmt.Println", ro: true},
		{cmd: "go doc -http=:6060", why: "server"},
		{cmd: "go build ./...", why: "compiles", sub: "build"},
		{cmd: "go mod tidy", why: "module", sub: "mod tidy"},
		{cmd: "cargo --version", ro: true},
		{cmd: "cargo -V", ro: true},
		{cmd: "cargo check", why: "not in the read-only", sub: "check"},
		{cmd: "docker ps", ro: true, sub: "ps"},
		{argv: []string{"docker", "ps", "-a", "--format", "{{.ID}} {{.Names}}"}, ro: true},
		{cmd: "docker images", ro: true},
		{cmd: "docker logs --tail 50 web", ro: true},
		{cmd: "docker logs -f web", ro: true},
		{cmd: "docker inspect web", ro: true},
		{cmd: "docker info", ro: true},
		{cmd: "docker version", ro: true},
		{cmd: "docker container ls -a", ro: true, sub: "container ls"},
		{cmd: "docker image ls", ro: true, sub: "image ls"},
		{cmd: "docker compose ps", ro: true, sub: "compose ps"},
		{cmd: "docker compose -f x.yml logs web", ro: true, reads: []string{"x.yml"}},
		{cmd: "docker compose up", why: "not in the read-only", sub: "compose up"},
		{cmd: "docker container rm x", why: "not in the read-only", sub: "container rm"},
		{cmd: "docker -H ssh://user@host ps", why: "daemon"},
		{cmd: "docker --context prod ps", why: "daemon"},
		{cmd: "docker run --rm alpine ls", why: "container", sub: "run"},
		{cmd: "docker cp web:/etc/passwd .", why: "copies", sub: "cp"},
		{cmd: "docker system prune -f", why: "not in the read-only", sub: "system prune"},
		{cmd: "gh repo view cli/cli --json name,description", ro: true, sub: "repo view"},
		{cmd: "gh issue list", ro: true, sub: "issue list"},
		{cmd: "gh issue view 12 --comments", ro: true},
		{cmd: "gh pr list", ro: true, sub: "pr list"},
		{argv: []string{"gh", "pr", "list", "--json", "number", "--jq", ".[].number"}, ro: true},
		{cmd: "gh pr view 12", ro: true},
		{cmd: "gh pr status", ro: true},
		{cmd: "gh pr diff 12", ro: true},
		{cmd: "gh pr checks 12", ro: true},
		{cmd: "gh status", ro: true, sub: "status"},
		{cmd: "gh auth status", ro: true, sub: "auth status"},
		{cmd: "gh auth status --show-token", why: "token"},
		{cmd: "gh run list", ro: true, sub: "run list"},
		{cmd: "gh pr view 12 --web", why: "browser"},
		{cmd: "gh pr view -w", why: "browser"},
		{cmd: "gh issue create -t x -b y", why: "creates", sub: "issue create"},
		{cmd: "gh pr merge 12 --squash", why: "merges", sub: "pr merge"},
		{cmd: "gh pr close 12", why: "closes", sub: "pr close"},
		{cmd: "gh pr frob", why: "not in the read-only", sub: "pr frob"},
		{cmd: "gh api repos/x/y", why: "request", sub: "api"},
		{cmd: "kubectl get pods -A", ro: true, sub: "get"},
		{cmd: "kubectl -n kube-system get pods -o wide", ro: true},
		{cmd: "kubectl get pods -n kube-system", ro: true},
		{cmd: "kubectl describe pod x", ro: true},
		{cmd: "kubectl logs -f x -c y", ro: true},
		{cmd: "kubectl config view", ro: true, sub: "config view"},
		{cmd: "kubectl --kubeconfig=./k get pods", why: "exec credential"},
		{cmd: "kubectl get pods -s https://evil", why: "another server"},
		{cmd: "kubectl get pods --serv=https://evil", why: "--serv"},
		{cmd: "kubectl apply -f x.yaml", why: "changes", sub: "apply"},
		{cmd: "kubectl foo", why: "not in the read-only", sub: "foo"},
		{cmd: "curl -s http://x", why: "network"},
		{cmd: "wget https://example.com/file", why: "downloads"},
		{cmd: "tar -tf x.tar", ro: true, reads: []string{"x.tar"}},
		{cmd: "tar -cf out.tar src", why: "writes an archive"},
		{cmd: "sudo ls", why: "another user"},
		{cmd: "xargs rm", why: "runs commands"},
	})
}

func TestSystem(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "brew list", ro: true, sub: "list"},
		{cmd: "brew info --json=v2 node", ro: true},
		{cmd: "brew --version", ro: true},
		{cmd: "brew install x", why: "installs", sub: "install"},
		{cmd: "brew tap x/y", why: "not in the read-only", sub: "tap"},
		{cmd: "apt list --installed", ro: true, sub: "list"},
		{cmd: "apt show curl", ro: true},
		{cmd: "apt install curl", why: "installs", sub: "install"},
		{cmd: "apt-get install -y curl", why: "installs", sub: "install"},
		{cmd: "apt-cache policy curl", ro: true, sub: "policy"},
		{cmd: "dpkg-query -W -f=${Version} curl", ro: true},
		{cmd: "systemctl status nginx", ro: true, sub: "status"},
		{cmd: "systemctl --no-pager status nginx", ro: true},
		{cmd: "systemctl status nginx --no-pager -l", ro: true},
		{cmd: "systemctl list-units --type=service --failed", ro: true},
		{cmd: "systemctl -H host status", why: "another system"},
		{cmd: "systemctl status -H host", why: "another system"},
		{cmd: "systemctl restart nginx", why: "restarts", sub: "restart"},
		{cmd: "journalctl -u nginx -n 100 --no-pager", ro: true},
		{cmd: "journalctl -f", ro: true},
		{cmd: "journalctl --vacuum-time=1d", why: "journal"},
		{cmd: "journalctl --vac=1d", why: "changes the journal"},
		{cmd: "join a b", ro: true, reads: []string{"a", "b"}},
		{cmd: "shuf -n1 f", ro: true},
		{cmd: "shuf -o out f", why: "writes"},
		{cmd: "expr 1 + 2", ro: true},
		{cmd: "cal -3", ro: true},
		{cmd: "getent hosts example.com", why: "egress"},
		{cmd: "git -- log", why: "before the subcommand"},
		{cmd: "docker compose config", why: ".env"},
		{cmd: "npm help install", why: "viewer"},
		{cmd: "awk -d {print} f", why: "writes a file"},
		{cmd: "awk --dump-variables {print} f", why: "writes a file"},
		{cmd: "man -u ls", why: "caches"},
		{cmd: "file -S x", why: "sandbox"},
		{cmd: "make --version", ro: true},
		{cmd: "make", why: "makefile"},
		{cmd: "terraform apply", why: "infrastructure", sub: "apply"},
	})
}

func TestShellAndNet(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "ulimit -a", ro: true},
		{cmd: "ulimit -n", ro: true},
		{cmd: "ulimit -n 100", why: "operand"},
		{cmd: "umask", ro: true},
		{cmd: "umask 077", why: "operand"},
		{cmd: "export", ro: true},
		{cmd: "export -p", ro: true},
		{cmd: "export FOO=bar", why: "environment of later commands"},
		{cmd: "export LC_ALL=C", ro: true},
		{cmd: "export LANG=C.UTF-8 TZ=UTC", ro: true},
		{cmd: "export PATH=/tmp", why: "environment of later commands"},
		{cmd: "export LD_PRELOAD=x.so", why: "environment of later commands"},
		{cmd: "export n=1", why: "environment of later commands"},
		// Shell state (issue 26): listings and the options that stay in
		// this shell are read-only; the rest change what later runs.
		{cmd: "set", ro: true},
		{cmd: "set -e", ro: true},
		{cmd: "set -euo pipefail", ro: true},
		{cmd: "set -eux -o pipefail", ro: true},
		{cmd: "set +x", ro: true},
		{cmd: "set -o", ro: true},
		{cmd: "set +o", ro: true},
		{cmd: "set -f", ro: true},
		{cmd: "set -o noclobber", ro: true},
		{cmd: "set --", ro: true},
		// Operands only set the positional parameters (this shell's, and
		// unknown to the analyser after any set with operands): from the
		// first word that is no option on, every word is one (bash 5.2:
		// "set a -x" sets $2 to -x, -x stays off).
		{cmd: "set -- -rf /", ro: true},
		{cmd: "set - -rf /", ro: true},
		{cmd: "set x", ro: true},
		{cmd: "set MAVEN_OPTS=-Xdebug -Xnoagent -Djava.compiler=NONE", ro: true},
		{cmd: "set x -a -o allexport +B", ro: true},
		{cmd: "set -a x", why: "later commands"},
		{cmd: "set -o allexport x", why: "later commands"},
		{cmd: "set +B x", why: "later commands"},
		{cmd: "set -o vi x", why: "later commands"},
		{argv: []string{"set", Dynamic, "x"}, why: "run time"},
		{argv: []string{"set", "-e", Dynamic}, why: "run time"},
		{argv: []string{"set", "x", Dynamic}, ro: true},
		{argv: []string{"set", "--", Dynamic}, ro: true},
		{cmd: "set -k", why: "later commands"},
		{cmd: "set -a", why: "later commands"},
		{cmd: "set -o allexport", why: "later commands"},
		{cmd: "set -o keyword", why: "later commands"},
		{cmd: "set -o posix", why: "later commands"},
		{cmd: "set +B", why: "later commands"},
		{cmd: "set -P", why: "later commands"},
		{cmd: "set -H", why: "later commands"},
		{cmd: "set -o history", why: "later commands"},
		{cmd: "set -eo", ro: true},
		{cmd: "set +m", ro: true},
		{cmd: "set -o monitor", ro: true},
		{cmd: "set -m x", ro: true},
		{cmd: "shift", ro: true},
		{cmd: "shift 2", ro: true},
		{cmd: "shift -1", why: "not a count"},
		{cmd: "shift 1 2", why: "not a count"},
		{argv: []string{"shift", Dynamic}, why: "not a count"},
		{cmd: "unset x y", ro: true},
		{cmd: "unset -v x", ro: true},
		{cmd: "unset -f ls /bin/ls", ro: true},
		{cmd: "unset -f PATH", ro: true},
		{cmd: "unset -- x", ro: true},
		{cmd: "unset PATH", why: "later commands"},
		{cmd: "unset IFS", why: "later commands"},
		{cmd: "unset -v LD_PRELOAD", why: "later commands"},
		{cmd: "unset -fv PATH", why: "later commands"},
		{cmd: "unset path", why: "later commands"},
		{cmd: "unset http_proxy", why: "later commands"},
		{cmd: "unset -n ref", why: "not modelled"},
		{cmd: "unset 'a[1]'", why: "later commands"},
		{argv: []string{"unset", Dynamic}, why: "run time"},
		{argv: []string{"unset", "-f", Dynamic}, why: "run time"},
		{argv: []string{"set", "-" + Dynamic}, why: "run time"},
		{cmd: "shopt", ro: true},
		{cmd: "shopt -p", ro: true},
		{cmd: "shopt -q extglob", ro: true},
		{cmd: "shopt dotglob", ro: true},
		{cmd: "shopt -s nullglob", ro: true},
		{cmd: "shopt -s nullglob dotglob", ro: true},
		{cmd: "shopt -u failglob", ro: true},
		{cmd: "shopt -so pipefail", ro: true},
		{cmd: "shopt -s expand_aliases", why: "later commands"},
		{cmd: "shopt -s execfail", ro: true},
		{cmd: "shopt -s gnu_errfmt shift_verbose", ro: true},
		{cmd: "shopt -s execfail sourcepath", why: "later commands"},
		{cmd: "shopt -s extdebug", why: "later commands"},
		{cmd: "shopt -s localvar_inherit", why: "later commands"},
		{cmd: "shopt -s extdebug", why: "later commands"},
		{cmd: "shopt -s sourcepath", why: "later commands"},
		{cmd: "shopt -s assoc_expand_once", why: "later commands"},
		{cmd: "shopt -so posix", why: "later commands"},
		{cmd: "shopt -s -u x", why: "later commands"},
		{argv: []string{"shopt", "-s", Dynamic}, why: "run time"},
		{cmd: "hash", ro: true},
		{cmd: "hash -l", ro: true},
		{cmd: "hash -t ls", ro: true},
		{cmd: "hash -r", ro: true},
		{cmd: "hash -p /tmp/x ls", why: "another program"},
		{cmd: "trap", ro: true},
		{cmd: "trap -l", ro: true},
		{cmd: "trap -p EXIT", ro: true},
		{cmd: "trap 'rm -rf x' EXIT", why: "installs"},
		{cmd: "trap -- 'x' INT", why: "installs"},
		{cmd: "declare -p", ro: true},
		{cmd: "declare -F", ro: true},
		{cmd: "typeset -f", ro: true},
		{cmd: "local x", ro: true},
		{cmd: "local x=1 y", ro: true},
		{cmd: "readonly -p", ro: true},
		{cmd: "local PATH=/tmp", why: "more than a plain variable"},
		{cmd: "local PATH", why: "later commands"},
		{cmd: "declare IFS", why: "later commands"},
		{cmd: "readonly PATH", why: "later commands"},
		{cmd: "declare -p PATH", ro: true},
		{cmd: "declare IFS=x", why: "more than a plain variable"},
		{cmd: "local path=/tmp", why: "more than a plain variable"},
		{cmd: "local http_proxy=x", why: "more than a plain variable"},
		{cmd: "declare -x y=1", why: "not in the read-only vocabulary"},
		{cmd: "declare -n r=PATH", why: "not in the read-only vocabulary"},
		{cmd: "declare -i n=1", why: "not in the read-only vocabulary"},
		{cmd: "declare -a a", why: "not in the read-only vocabulary"},
		{cmd: "declare a[0]=x", why: "more than a plain variable"},
		{cmd: "read", ro: true},
		{cmd: "read -r line", ro: true},
		{cmd: "read -r -a words", ro: true},
		{cmd: "read -d '' -r name", ro: true},
		{cmd: "read -t 1 -n 1 -s key", ro: true},
		{cmd: "read -p prompt x", ro: true},
		{cmd: "read PATH", why: "later commands"},
		{cmd: "read -a BASH_ENV", why: "later commands"},
		{cmd: "read IFS", why: "later commands"},
		{cmd: "read -e x", why: "readline"},
		{cmd: "read -i x -e y", why: "readline"},
		{argv: []string{"read", Dynamic}, why: "run time"},
		{cmd: "alias", ro: true},
		{cmd: "alias ll=ls", why: "operand"},
		{cmd: "jobs -l", ro: true},
		{cmd: "ss -tlnp", ro: true},
		{cmd: "ss -K dst 1.2.3.4", why: "closes"},
		{cmd: "netstat -tulpn", ro: true},
		{cmd: "lsof -i :8080", ro: true},
		{cmd: "lsof -p 12", ro: true},
		{cmd: "git show-branch --all", ro: true},
		{cmd: "git ls-remote origin", ro: true, sub: "ls-remote"},
		{cmd: "git ls-remote --upload-pack=evil origin", why: "runs a program"},
		{cmd: "git ls-remote ext::sh", why: "ext::"},
		{cmd: "npm run", ro: true, sub: "run"},
		{cmd: "npm run build", why: "script", sub: "run"},
		{cmd: "npm pkg get name", ro: true, sub: "pkg get"},
		{cmd: "npm pkg set name=x", why: "not in the read-only", sub: "pkg set"},
	})
}

func TestAwkRedirect(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{argv: []string{"awk", "NR>1", "f"}, ro: true},
		{argv: []string{"awk", "$3 >= 100 {print $1}", "f"}, ro: true},
		{argv: []string{"awk", "NR>1 {print > \"out\"}", "f"}, why: "writes a file"},
		{argv: []string{"awk", "{if ($1 > 2) print}", "f"}, ro: true},
		{argv: []string{"awk", "{print}{print >> \"x\"}", "f"}, why: "writes a file"},
		{argv: []string{"awk", "$1 == \"{\" && NR > 1 {print}", "f"}, ro: true},
		{argv: []string{"awk", "-e", "{print > \"x\"}"}, why: "writes a file"},
		{argv: []string{"awk", `BEGIN {FS=":"} $4 >= 1000 {printf "%-20s\n", $1}`, "f"}, ro: true},
		{argv: []string{"gawk", "-e", "{print ($1 > 2)}", "-e", "{printf(\"%d\", $1) > \"x\"}"}, why: "writes a file"},
	})
}

// awkPrograms are awk programs with a ">" (or something that may hide one),
// and whether awkOutputRedirect must call them redirections. Each is run
// with the real gawk and mawk (TestAwkRedirectAgainstRealAwk): one called
// no redirection must create no file.
var awkPrograms = []struct {
	prog  string
	redir bool
}{
	{`$1 >= 423`, false},
	{`NR > 1 { print $2 }`, false},
	{`{ if ($1 > 3) print "big" }`, false},
	{`{ if ($1 > 3) print "big"; else print "small" }`, false},
	{`{ while (i > 0) i-- } END { print i }`, false},
	{`{ x = $1 > 2; print x }`, false},
	{`{ print ($1 > $2) }`, false},
	{`{ print 1, ($1 > 2) }`, false},
	{`{ printf("%d\n", $1 > 2) }`, false},
	{`{ printf "%s\n", ($1 > 2 ? "a" : "b") }`, false},
	{`{ print $1 ">" 2 }`, false},
	{`{ print "a>b" }`, false},
	{`{ print /a>b/ }`, false},
	{`{ print $0 ~ /[>]/ }`, false},
	{`{ print a ( b > c) }`, false},
	{`{ n = $1 / 2; print n }`, false},
	{`{ print $1 / 2 }`, false},
	{`{ print } # a > comment`, false},
	{"{ print $1\n}\n$1 > 3 { n++ }", false},
	{"BEGIN { x = 1 }\n$2 > x", false},
	{`$1 == "{" && NR > 1 { print }`, false},
	{`$1 == "\"" && NR > 1 { print }`, false},
	{`BEGIN {FS=":";printf "%-20s %6s\n", "Name", "UID"} $4 >= 1000 {printf "%-20s %6d\n", $1, $4}`, false},

	{`{ print > "x1" }`, true},
	{`{ print >> "x2" }`, true},
	{`{ print (1) > "x3" }`, true},
	{`{ print (1 > 2) > "x4" }`, true},
	{`{ printf("%d\n", $1) > "x5" }`, true},
	{`{ print (1, 2) > "x6" }`, true},
	{`{ print (1)(2) > "x7" }`, true},
	{`{ print -1 > "x8"; }`, true},
	{"{ print 1,\n 2 > \"x9\" }", true},
	{"{ print 1 \\\n > \"x10\" }", true},
	{`{ print $1 >= 2 }`, true},   // gawk: a comparison; mawk: a syntax error
	{`{ print a[$1 > 2] }`, true}, // a syntax error to both
	{`{ if ($1 > 0) print "a" > "x11" }`, true},
	{`{ print "(" > "x12" }`, true},
	{`{ print "\"(" > "x13" }`, true},
	{`{ print /(/ > "x14" }`, true},
	{`{ x = 1; print x /2/ 1 > "x15" }`, true},
	{`{ i++ / 2; print > "x16" }`, true},
	{`{ print length / 2 > "x17" }`, true},
	{`{ if (1) /"/; print > "x18"; x = "/" }`, true},
	{`{ print /[/]/ > "x19" }`, true},
	{`{ print "(" }{ print > "x20" }`, true},
	{`{ print 1 ? "x21" : 2 > "x22" }`, true},
	{`{ print "a` + "\n" + `" > "x23" }`, true},
}

func TestAwkOutputRedirect(t *testing.T) {
	t.Parallel()
	for _, c := range awkPrograms {
		if got, why := awkOutputRedirect(c.prog); got != c.redir {
			t.Errorf("%q: redirect = %v (%s), want %v", c.prog, got, why, c.redir)
		}
		v := Judge([]string{"awk", c.prog, "f"})
		if v.ReadOnly == c.redir {
			t.Errorf("awk %q: read-only = %v, want %v (%s)", c.prog, v.ReadOnly, !c.redir, v.Reason)
		}
	}
}

// The programs awkOutputRedirect calls comparisons create no file when
// the real gawk and mawk run them.
func TestAwkRedirectAgainstRealAwk(t *testing.T) {
	t.Parallel()
	ran := 0
	var awks []string
	for _, awk := range []string{"gawk", "mawk"} {
		if _, err := exec.LookPath(awk); err != nil {
			t.Logf("%s not installed", awk)
			continue
		}
		awks = append(awks, awk)
	}
	for k, awk := range awks {
		ran++
		quick := quickFirst{}
		for _, c := range awkPrograms {
			// Without -tags slow the first program that is no
			// redirection is run with the first awk; those called
			// redirections (which this test asserts nothing of) are not
			// run; .ci/run runs every program with every awk (quickFirst,
			// docs/development.md). TestAwkOutputRedirect judges them all.
			if !slowTests && (c.redir || k > 0) || !quick.take("clean") {
				continue
			}
			dir := t.TempDir()
			cmd := exec.Command(awk, c.prog)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader("5 1\n7 3\n")
			_ = cmd.Run() // a syntax error is fine: it writes nothing
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if redir, _ := awkOutputRedirect(c.prog); len(ents) > 0 && !redir {
				t.Errorf("%s %q created %s, but awkOutputRedirect calls it no redirection", awk, c.prog, ents[0].Name())
			}
		}
	}
	if ran == 0 {
		t.Skip("neither gawk nor mawk is installed")
	}
}

func TestSedScripts(t *testing.T) {
	t.Parallel()
	for _, script := range []string{
		"$p", "/^$/d", "s#a#b#g", ":a;$!N;ba", "1~3d", "0,/re/d", `s/a/\n/g`, "=", "l", "l 40",
		"N;P;D", "/x/,+2d", "2,~4p", `\%x%d`, "/a/I,/b/Mp", "y/abc/xyz/", "1!G;h;$!d", "s/a/b/3",
		"s/x/y/2g", "/x/{\nn\nd\n}", "# comment\np", "1q", "5Q1", "$=", "F", "z",
		"v 4.2", "/x/ s/a/b/", "1,3 !d", "s/a/\\\n/", "s/[[:alpha:]]/x/g", "/[a-z]/p", "s/[^,]*,//", "s/é/e/g",
	} {
		v := Judge([]string{"sed", "-n", script, "f"})
		if !v.ReadOnly {
			t.Errorf("sed %q: %s", script, v.Reason)
		}
	}
	for _, script := range []string{
		"w x", "1w x", "/a/w x", "s/a/b/w x", "s/a/b/gw x", "s/a/b/pw x", "e", "1e ls", "s/a/b/e",
		"W x", "$!{w x\n}", "p;w x", "s/a/b/;e ls", "/x/!e", "s/x/y/ w z", "1,2{\ns/a/b/w f\n}",
		"a\\\ntext\nw x", "i\\\nmulti\\\nline\nw x", "y/ab/cd/;w z", "s|a|b|w z", "k", "s/a/b",
		"s/[/]/x/w f",
		// a delimiter inside brackets: GNU reads [/] as one bracket, so
		// here the w flag is real; the naive reading sees "/w /tmp/x" as an
		// address and "tmp/x" as a branch. Both readings must pass.
		"s/[/]/p;/w /tmp/x", "/[/]/w /tmp/x", "s/[/]/x/",
		// GNU ends labels and v's argument at a blank: these write
		":x w /tmp/f", ": x w /tmp/f", "bx w /tmp/f", "b x w /tmp/f", "tx\tw f", "v 4.2 w f",
		"/a/{bx};w f", "/a/{tx}w f", "b;w f",
		// multibyte delimiters are not modelled
		"s§a§b§w x", "s§a§b§",
	} {
		v := Judge([]string{"sed", script, "f"})
		if v.ReadOnly {
			t.Errorf("sed %q judged read-only", script)
		}
	}
}

// TestArityTraps: an option that takes a value in the spec but not in the
// program would swallow the next word; these are the cases found so far.
func TestArityTraps(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "gh auth status -t", why: "token"},
		{cmd: "gh auth status -t -a", why: "token"},
		{cmd: "gh auth status -at", why: "token"},
		{cmd: "journalctl -n --vacuum-size=1", why: "journal"},
		{cmd: "journalctl -n 20", ro: true},
		{cmd: "journalctl -n20 -b", ro: true},
		{cmd: "journalctl -b -1 -u x", ro: true},
		{cmd: "git blame --reverse --textconv f", why: "textconv"},
		{cmd: "git blame --reverse a..b f", ro: true},
		{cmd: "git describe --abbrev --textconv", why: "textconv"},
		{cmd: "git tag --points-at", ro: true},
	})
}

// permopa's own rules commands write its settings.
func TestPermopaRules(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		{cmd: "permopa rules list", ro: true, sub: "rules list"},
		{cmd: "permopa rules list --json --files", ro: true},
		{cmd: "permopa rules add Bash", why: "writes permission settings", writes: []string{"./.permopa", "~/.config/permopa"}},
		{cmd: "permopa rules --project /p add --destination local Bash(*)", writes: []string{"/p/.permopa", "~/.config/permopa"}},
		{cmd: "permopa rules revoke --behavior deny Bash(rm:*) --user-dir /u", writes: []string{"./.permopa", "/u"}},
		{cmd: "permopa rules --managed-dir /m add x", writes: []string{"./.permopa", "~/.config/permopa", "/m"}},
		{cmd: "permopa trust .", why: "changes which project settings are trusted", writes: []string{"~/.config/permopa"}},
		{cmd: "permopa trust --user-dir /u --revoke /p", writes: []string{"/u"}},
		{cmd: "permopa rules export -o out.json s.yaml", why: "writes the document", reads: []string{"s.yaml"}, writes: []string{"out.json"}},
		{cmd: "permopa rules export s.yaml", ro: true, reads: []string{"s.yaml"}},
		{cmd: "permopa rules frob", why: "not in the read-only vocabulary"},
	})
}

// TestRgrepIsGrepR (issue 26): rgrep is GNU grep's script "exec grep -r
// "$@"", so each of its command lines gets grep -r's verdict: the same
// reads, trees and refusals, hostile operands included.
func TestRgrepIsGrepR(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"."}, {"x", "/home/u/.ssh"}, {"-f", "/home/u/.ssh/id_rsa", "x"}, {"--exclude-from=/etc/shadow", "x"},
		{"-R", "x", "."}, {"x", Dynamic}, {Dynamic}, {"--frob", "x"}, {"-e", "x", "--", "-rf"}, {"--include=*.go", "x"},
	} {
		got := Judge(append([]string{"rgrep"}, args...))
		want := Judge(append([]string{"grep", "-r"}, args...))
		if got.ReadOnly != want.ReadOnly || strings.Join(got.Reads, "\x00") != strings.Join(want.Reads, "\x00") ||
			fmt.Sprint(got.RecursiveReads) != fmt.Sprint(want.RecursiveReads) {
			t.Errorf("rgrep %q = %+v, grep -r: %+v", args, got, want)
		}
	}
	if v := Judge([]string{"rgrep", "x"}); len(v.RecursiveReads) == 0 {
		t.Errorf("rgrep x reads no tree: %+v", v)
	}
}
