package bash

import (
	"strings"
	"testing"
)

// ruleCase is one row of a rule semantics table: a rule content, a
// command, and whether a deny (or ask) rule with that content hits it.
type ruleCase struct {
	rule, cmd string
	hit       bool
}

func checkDenyTable(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		pats := mustPatterns(t, c.rule)
		a := analyze(c.cmd, conformanceOpts)
		got := a.MatchAny(pats) == 0
		if got != c.hit {
			t.Errorf("deny %q on %q: hit %v, want %v (reason %q)\n%s", c.rule, c.cmd, got, c.hit, a.MatchReason(pats[0]), brief(a))
		}
		if a.MatchAnySet(NewPatternSet(pats)) == 0 != got {
			t.Errorf("deny %q on %q: indexed matching disagrees", c.rule, c.cmd)
		}
		if c.hit && a.MatchReason(pats[0]) == "" {
			// A hit that is not literal must say why.
			literal := false
			for i := range a.Leaves {
				literal = literal || a.views(&a.Leaves[i], pats[0].Match)
			}
			if !literal {
				t.Errorf("deny %q on %q: a hit that is not literal has no reason", c.rule, c.cmd)
			}
		}
	}
}

// TestFlagAwareRuleSemantics is the semantics table of flag-aware deny and
// ask rules (match.go, docs/usage.md "Rules"): one block per rule form.
func TestFlagAwareRuleSemantics(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		// Options with a trailing wildcard: every spelling, options beyond
		// the rule's, any operands.
		{"rm -rf:*", "rm -rf x", true},
		{"rm -rf:*", "rm -fr x", true},
		{"rm -rf:*", "rm -r -f x", true},
		{"rm -rf:*", "rm -Rf x", true},
		{"rm -rf:*", "rm -R -f x", true},
		{"rm -rf:*", "rm --recursive --force x", true},
		{"rm -rf:*", "rm -r x -f", true},
		{"rm -rf:*", "rm --rec --forc x", true},
		{"rm -rf:*", "rm -rvf x", true},
		{"rm -rf:*", "rm -f -i -r x y z", true},
		{"rm -rf:*", "rm -r -r -f -f x", true},
		{"rm -rf:*", "rm -rf", true},
		{"rm -rf:*", "/bin/rm -fr x", true},
		{"rm -rf:*", "sudo rm -fr x", true},
		{"rm -rf:*", "bash -c 'rm -fr x'", true},
		{"rm -rf:*", "find . -exec rm -fr {} +", true},
		{"rm -rf:*", "strace -f rm -fr x", true},
		{"rm -rf:*", "flock /tmp/l rm --rec --force x", true},
		{"rm -rf:*", "rm -r x", false},
		{"rm -rf:*", "rm -f x", false},
		{"rm -rf:*", "rm -d x", false},
		{"rm -rf:*", "rm -- -rf", false},
		{"rm -rf:*", "rm x", false},
		{"rm -rf:*", "rmdir x", false},
		{"rm -rf:*", "echo rm -rf x", false},
		// A leaf whose options permopa cannot see hits the rules of its program.
		{"rm -rf:*", "rm $FLAGS x", true},
		{"rm -rf:*", "rm -f \"$f\"", true},
		{"rm -rf:*", "ls | xargs rm", true},
		{"rm -rf:*", "rm --frobnicate x", true},
		{"rm -rf:*", "rm -f -- \"$f\"", false}, // after --, only operands
		{"rm -rf:*", "ls $x", false},           // another program
		// Options and operands with a trailing wildcard: the operands are a
		// subsequence of the leaf's, paths compared cleaned.
		{"rm -rf build:*", "rm -fr build", true},
		{"rm -rf build:*", "rm -rf x build", true},
		{"rm -rf build:*", "rm -r ./build/ -f", true},
		{"rm -rf build:*", "rm -rf build dist", true},
		{"rm -rf build:*", "rm -rf buildx", false},
		{"rm -rf build:*", "rm -rf dist", false},
		{"rm -rf build:*", "rm -r build", false},
		{"rm -rf ~:*", "rm -fr ~", true},
		{"rm -rf ~:*", "rm -Rf /home/u", true},
		{"rm -rf ~:*", "rm -rf ~/x", false},
		{"rm -rf /tmp/*:*", "rm -fr /tmp/a", true},
		{"rm -rf /tmp/*:*", "rm -fr /var/a", false},
		// Without a wildcard: the operands are exactly the rule's.
		{"rm -rf build", "rm -fr build", true},
		{"rm -rf build", "rm -v -r -f build", true},
		{"rm -rf build", "rm -fr build dist", false},
		{"rm -rf build", "rm -fr", false},
		// git push --force: -f, --force-with-lease, --mirror and "+ref"
		// (git 2.39 force-updates "+HEAD:main") are force pushes.
		{"git push --force:*", "git push --force", true},
		{"git push --force:*", "git push -f", true},
		{"git push --force:*", "git push origin main -f", true},
		{"git push --force:*", "git push -uf origin main", true},
		{"git push --force:*", "git push --forc origin", true},
		{"git push --force:*", "git push --force-with-lease", true},
		{"git push --force:*", "git push --force-with-lease=main:abc origin", true},
		{"git push --force:*", "git push --mirror backup", true},
		{"git push --force:*", "git push origin +main", true},
		{"git push --force:*", "git push origin +HEAD:main", true},
		{"git push --force:*", "git push origin main +dev:dev", true},
		{"git push --force:*", "git -C repo --no-pager push -f", true},
		{"git push --force:*", "git push $opts", true},
		{"git push --force:*", "git $cmd -f", true},
		{"git push --force:*", "git push", false},
		{"git push --force:*", "git push origin main", false},
		{"git push --force:*", "git push --force-if-includes origin", false},
		{"git push --force:*", "git push origin :old", false},
		{"git push --force:*", "git pull --force", false},
		{"git push --force:*", "git fetch -f", false},
		{"git push --force:*", "git log --force", false},
		{"git push --force origin main:*", "git push -f origin main", true},
		{"git push --force origin main:*", "git push origin +main", true},
		{"git push --force origin main:*", "git push -f origin dev", false},
		{"git push --force-with-lease:*", "git push --force-with-lease", true},
		{"git push --force-with-lease:*", "git push --force", false},
		{"git push --delete:*", "git push origin :old", true},
		{"git push --delete:*", "git push -d origin old", true},
		// Operands only, with a wildcard: options may stand between them.
		{"git push origin main:*", "git push -q origin main", true},
		{"git push origin main:*", "git push origin dev", false},
		// Other subcommands and option forms.
		{"git commit --no-verify:*", "git commit -n -m x", true},
		{"git commit --no-verify:*", "git commit --no-v -am x", true},
		{"git commit --no-verify:*", "git commit -m x", false},
		{"git branch -D:*", "git branch -D x", true},
		{"git branch -D:*", "git branch -d x", false},
		{"git branch --delete --force:*", "git branch -D x", true},
		{"git branch --delete --force:*", "git branch -d -f x", true},
		{"git branch -d:*", "git branch -D x", true},
		{"git clean -f:*", "git clean -fdx", true},
		{"git clean -f:*", "git clean --force -d", true},
		{"git clean -f:*", "git clean -n", false},
		{"git reset --hard:*", "git reset -q --hard HEAD~1", true},
		{"git reset --hard:*", "git reset --soft HEAD~1", false},
		{"git checkout --force:*", "git checkout -f main", true},
		{"sort -o:*", "sort -o out f", true}, // an option without its value: any value
		{"sort -o:*", "sort f --output=out", true},
		{"sort -o:*", "sort f", false},
		{"git -c core.pager=less:*", "git -c core.pager=less log", true},
		{"git -c core.pager=less:*", "git -c core.pager=more log", false},
		{"git -c core.pager=*:*", "git -c core.pager=more log", true},
		{"tar --to-command:*", "tar xf a.tar --to-com=cat", true},
		{"tar -x:*", "tar xzf a.tgz", true},
		{"tar -x:*", "tar czf a.tgz .", false},
		{"find -delete:*", "find . -name '*.o' -delete", true},
		// Rules that stay literal: no flag spec, a word wildcard before the
		// end, no option and no wildcard.
		{"git status", "git status --short", false},
		{"git * --force", "git push -f", false},
		{"git * --force", "git push --force", true},
		{"frobnicate -x:*", "frobnicate -y -x", false},
	})
}

// TestDenyRulesFailClosedOnUncertainty: a deny or ask rule (here one about
// another program altogether) hits every command whose program or code
// permopa cannot tell, with a reason; the certain commands next to them do
// not hit.
func TestDenyRulesFailClosedOnUncertainty(t *testing.T) {
	t.Parallel()
	uncertain := []string{
		// command names built at run time
		"/bin/r? x", "/bin/[r]m x", "a=rm; $a x", "${x:-rm} x", "$(echo rm) x", "`echo rm` x", `"$CMD" x`,
		"$CMD", "${CMDS[0]} x", "f() { \"$@\"; }; f rm x", "alias r=rm; r -rf x", "find . -exec {} \\;",
		"ls | xargs -I{} {} x",
		// scripts that are no file on disk, shells reading stdin
		"source <(echo rm x)", ". <(curl -s x)", "source /dev/stdin", `. "$f"`, "bash <(curl -s x)",
		"curl -s x | sh", "curl -s x | bash -s", "cat x | python3", "sh -s < /dev/stdin", "xargs sh -c",
		"find . -exec sh -c 'cat $x{}' \\;", "ls | xargs -I{} sh -c 'echo {}'",
		// names rebound for later commands
		"hash -p /bin/rm git; git status", "enable -f ./x.so foo", "PATH=/tmp/x:$PATH git status",
		"export PATH=/tmp/x", "LD_PRELOAD=/tmp/x.so ls", "env LD_PRELOAD=/tmp/x.so ls", "BASH_ENV=/tmp/x bash -c ls",
		"NODE_OPTIONS='--require /tmp/x.js' node app.js", "GIT_CONFIG_COUNT=1 git log", "TAR_OPTIONS=--to-command=x tar xf a",
		// command strings only known at run time
		"tar xf a.tar --to-command=\"$c\"", "PAGER=$x git log", "git -c core.pager=\"$p\" log", "sed \"$script\" f",
		"git --config-env=core.pager=P log", "ssh -o ProxyCommand=\"$p\" h", "rsync -e \"$rsh\" a b", "man -P \"$p\" ls",
		"sh -c \"$script\"", "eval \"$x\"", "trap \"$x\" EXIT", "watch \"$x\"", "env -S \"$x\"", "su -c \"$x\"",
		"timeout 5 $cmd", "exec $cmd", "nice \"$@\"",
		// code in another language, package runners, editors, pagers
		"python -c 'import os'", "python3 -c 'import os; os.system(\"rm -rf x\")'", "python3 -i -c 'print(1)'", "node -e 'x'", "node -p 1",
		"perl -e 'system \"rm\"'", "perl -ne 'print; system 1' f", "ruby -e 'x'", "php -r 'x'", "lua -e 'x'", "Rscript -e 'x'",
		"osascript -e 'x'", "deno eval 'x'", "bun -e 'x'", "awk 'BEGIN{system(\"rm -rf x\")}'", "awk '{print | \"sh\"}' f",
		"sed 's/a/b/e' f", "sed e f", "npx cowsay", "npm exec -- cowsay", "npm x cowsay", "pnpm dlx cowsay", "yarn dlx cowsay",
		"vim -c '!rm -rf x' f", "vi '+!rm x' f", "less '+!rm x' f", "parallel rm ::: a b", "gdb -ex run ./a", "script out.log",
		"git -c include.path=/tmp/c log", "git -c frob.nicate=1 log", "git -c alias.p=push p -f", "python3 <(curl -s x)", "echo 'rm x' | at now",
		"expect -c 'spawn rm x'", "crontab /tmp/c", "systemd-run rm x", "awk -f /dev/stdin f",
		// code written and run by the same command
		"echo 'rm -rf x' > s.sh; bash s.sh", "echo 'rm -rf x' > s.sh && . ./s.sh", "cp /tmp/e ./run.sh; ./run.sh",
		"printf 'import os' > json.py; python3 -c 'import json'", "echo 'all:; rm -rf x' > Makefile && make",
		"cat > x.py <<'EOF'\nimport os\nEOF\npython3 x.py", "echo x > \"$f\"; make",
		// what the analyser does not model, caps, parse errors
		"echo ${x@P}", "if then rm -rf /tmp/x",
		// script files permopa does not read (programs in another
		// language) or cannot (none of these exists under conformanceOpts'
		// directory): issue 25, inline code, package runners and script
		// files alike
		". ./script.sh", "bash script.sh", "python3 script.py", "node app.js",
		"echo hi > notes.txt; python3 x.py", "bash s.sh > log", "python3 -m pytest",
		"./build.sh", "source env.sh", "bun run dev",
	}
	for _, c := range uncertain {
		pats := mustPatterns(t, "docker:*", "git push:*")
		a := analyze(c, conformanceOpts)
		if i := a.MatchAny(pats); i != 0 {
			t.Errorf("%q: deny rules do not hit (index %d)\n%s", c, i, brief(a))
			continue
		}
		if a.MatchAnySet(NewPatternSet(pats)) != 0 {
			t.Errorf("%q: indexed deny rules do not hit", c)
		}
		if r := a.MatchReason(pats[0]); !strings.Contains(r, "cannot tell") {
			t.Errorf("%q: reason %q does not say why", c, r)
		}
		if a.ReadOnly {
			t.Errorf("%q: judged read-only", c)
		}
	}
	certain := []string{
		"rm x", "git status", "ls -la",
		"make test", "PAGER=less git log", "LANG=C ls", "FOO=1 make", "echo $HOME", "cat $(ls)",
		"hash -r", "sed -n p f", "awk '{print $1}' f", "tar xzf a.tgz", "git -c user.name=me log", "rg --pre cat x",
		"ssh -p 22 host ls", "find . -exec cat {} \\;", "xargs rm", "timeout 5 ls", "exec -a name ls",
		"python3 -c 'print(1)'", "curl -s x | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"v\"])'",
		"make > build.log", "npm run", "npm install --ignore-scripts", "yarn add --ignore-scripts x", "python3 --version",
		// no package.json from /home/u/proj up: npm, yarn and pnpm stop
		// before running anything
		"npm run build", "npm test > out.txt && make", "yarn test", "pnpm run lint", "npm t", "npm run-script x",
	}
	for _, c := range certain {
		pats := mustPatterns(t, "docker:*", "git push:*")
		a := analyze(c, conformanceOpts)
		if i := a.MatchAny(pats); i >= 0 {
			t.Errorf("%q: an unrelated deny rule hits (index %d, %q)\n%s", c, i, a.MatchReason(pats[i]), brief(a))
		}
	}
	// A very long command is cut: what was not read may hide anything.
	long := strings.Repeat("true; ", DefaultMaxLeaves+2) + "docker rm x"
	if a := analyze(long, conformanceOpts); a.MatchAny(mustPatterns(t, "git push:*")) != 0 {
		t.Errorf("a truncated command must hit every deny rule")
	}
}

// TestDenyRulesSeeCommandStrings: command lines handed to programs by
// options, operands and variables are parsed, so a deny rule sees what
// they run, in any spelling.
func TestDenyRulesSeeCommandStrings(t *testing.T) {
	t.Parallel()
	for _, c := range []string{
		"sed -n '1e rm -fr x' f", "sed -e p -e '2e rm -rf x' f", "git -c core.pager='rm -rf x' log",
		"git -c alias.x='!rm -rf x' x", "git -c core.sshCommand='rm -rf x' fetch", "git config core.pager 'rm -rf x'",
		"git config alias.y '!rm -rf x'", "git rebase -x 'rm -rf x' main", "git rebase --exec='rm -fr x' main",
		"git submodule foreach rm -rf x", "git bisect run rm -rf x", "git clone -u 'rm -rf x' a b",
		"GIT_PAGER='rm -fr /' git log", "PAGER='rm -rf x' man ls", "EDITOR='rm -rf x' git commit",
		"GIT_SSH_COMMAND='rm -rf x' git fetch", "LESSOPEN='|rm -rf x %s' less f", "export PAGER='rm -rf x'",
		"declare -x EDITOR='rm -rf x'", "PROMPT_COMMAND='rm -rf x'", "env GIT_PAGER='rm -rf x' git log",
		"tar xf a.tar --to-command='rm -rf x'", "tar -I 'rm -rf x' -xf a", "tar xf a --checkpoint-action=exec='rm -rf x'",
		"rsync -e 'rm -rf x' a b", "rsync --rsync-path='rm -rf x' a b", "ssh -o ProxyCommand='rm -rf x' h",
		"ssh -oLocalCommand='rm -rf x' h", "ssh h rm -rf /", "ssh h 'rm -rf /'", "scp -S 'rm -rf x' a h:b",
		"man -P 'rm -rf x' ls", "sort --compress-program='rm -rf x' f", "make CC='rm -rf x'", "zip -TT 'rm -rf x' a.zip f",
		"flock /tmp/l -c 'rm -rf x'", "flock /tmp/l rm -rf x", "script -c 'rm -rf x' /dev/null", "su -c 'rm -rf x'",
		"sg wheel 'rm -rf x'", "env -S 'rm -rf x'", "watch 'rm -rf x'", "watch -x rm -rf x", "timeout 5 rm -rf x",
		"npm run build --script-shell='rm -rf x'", "chroot / rm -rf x", "unshare -r rm -rf x", "taskset 1 rm -rf x",
		"busybox rm -rf x", "pkexec rm -rf x", "valgrind rm -rf x", "nsenter -t 1 rm -rf x",
		"git filter-branch --tree-filter 'rm -rf x' HEAD",
	} {
		a := analyze(c, conformanceOpts)
		if a.MatchAny(mustPatterns(t, "rm -rf:*")) != 0 {
			t.Errorf("%q: rm -rf:* does not see the command\n%s", c, brief(a))
		}
	}
}

// TestAllowRulesCoverNoMoreThanTheirWords: allow rules stay literal word
// prefixes, a wildcard never stands for a word that carries code, and a
// write by redirection is never covered.
func TestAllowRulesCoverNoMoreThanTheirWords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd   string
		rules []string
		ok    bool
	}{
		{"git status > out.txt", []string{"git status:*"}, false},
		{"git status >> out.txt", []string{"git status:*", "git:*"}, false},
		{"npm run build > log", []string{"npm run:*"}, false},
		{"{ npm test; npm run build; } > log", []string{"npm test:*", "npm run:*"}, false},
		{"time -o t.txt npm test", []string{"npm test:*"}, false},
		{"git status > /dev/null 2>&1", nil, true},
		{"npm run build 2>&1 | tee /dev/null", []string{"npm run:*"}, true},
		{"npm run build > /dev/null", []string{"npm run:*"}, true},
		{"sed -n '1e id' f", []string{"sed:*"}, false},
		{"sed -n '1e id' f", []string{"sed -n:*"}, false},
		{"sed -n '1e id' f", []string{"sed -n '1e id' f"}, true},
		{"sed -i s/a/b/ f", []string{"sed:*"}, true},
		{"npm run build --script-shell=bash", []string{"npm run:*"}, false},
		{"npm run build", []string{"npm run:*"}, true},
		{"git -c core.pager=less log", []string{"git:*"}, false},
		{"git -c core.pager=less log", []string{"git -c core.pager=less log:*"}, true},
		{"git -c user.name=me commit -m x", []string{"git:*"}, true},
		{"find . -exec rm {} \\;", []string{"find:*"}, false},
		{"find . -exec rm {} \\;", []string{"find . -exec rm {} ;"}, true},
		{"tar xf a.tar --to-command=cat", []string{"tar:*"}, false},
		{"tar xzf a.tgz", []string{"tar:*"}, true},
		{"rsync -e ssh a b", []string{"rsync:*"}, false},
		{"ssh host ls", []string{"ssh:*"}, false},
		{"ssh host ls", []string{"ssh host ls"}, true},
		{"PAGER=less git log", []string{"PAGER=less git log:*"}, true},
		{"PAGER=less git log", []string{"PAGER=*:*"}, false},
		{"python3 -c 'print(1)'", []string{"python3:*"}, false},
		{"python3 -c 'print(1)'", []string{"python3 -c:*"}, false},
		{"python3 -c 'print(1)'", []string{"python3 -c 'print(1)'"}, true},
		{"python3 script.py", []string{"python3:*"}, true},
		{"bash -c 'rm x'", []string{"bash:*"}, false},
		{"bash -c 'rm x'", []string{"bash -c 'rm x'"}, true},
		{"make CC=clang", []string{"make:*"}, false},
		{"make test", []string{"make:*"}, true},
		{"npx cowsay hi", []string{"npx:*"}, false},
		{"npx cowsay hi", []string{"npx cowsay:*"}, true},
		{"git status", nil, true},
		{"git log --oneline", []string{"git log:*"}, true},
		// A file an option writes is spelled out, as a redirect's would be.
		{"git diff --output=/tmp/x", []string{"git diff:*"}, false},
		{"git diff --output /tmp/x HEAD", []string{"git diff:*", "git diff --output:*"}, false},
		{"git diff --output=/tmp/x", []string{"git diff --output=/tmp/x"}, true},
		{"git log -p --output=/tmp/x", []string{"git log:*"}, false},
		{"sort -o /tmp/x in", []string{"sort:*"}, false},
		{"sort -o/tmp/x in", []string{"sort:*"}, false},
		{"sort in --output=/tmp/x", []string{"sort in:*"}, false},
		{"sort -o out in", []string{"sort -o out:*"}, true},
		{"find . -fprint /tmp/x", []string{"find:*"}, false},
		{"find . -fls /tmp/x -name y", []string{"find . -fls /tmp/x:*"}, false},
		{"find . -fls /tmp/x -name y", []string{"find . -fls /tmp/x -name y"}, true},
		{"openssl x509 -in c.pem -out /tmp/x", []string{"openssl x509:*"}, false},
		{"tree -o /tmp/x", []string{"tree:*"}, false},
		{"sed -n 'w /tmp/x' f", []string{"sed:*", "sed -n:*"}, false},
		{"sed 's/a/b/w /tmp/x' f", []string{"sed:*"}, false},
		{"sed -n 'w /tmp/x' f", []string{"sed -n 'w /tmp/x':*"}, true},
		{"sed -n 'w /dev/stdout' f", []string{"sed:*"}, true},
		{"awk '{print > \"/tmp/x\"}' f", []string{"awk:*"}, false},
		{"awk 'NR>1 {print}' f", []string{"awk:*"}, true},
		{"info --output=/tmp/x ls", []string{"info:*"}, false},
		{"info -o /tmp/x ls", []string{"info:*"}, false},
		{"blkid -c /tmp/x", []string{"blkid:*"}, false},
		{"sort in", []string{"sort:*"}, true},
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		pats := mustPatterns(t, c.rules...)
		if _, ok := a.Covered(pats); ok != c.ok {
			t.Errorf("Covered(%q, %q) = %v, want %v\n%s", c.cmd, c.rules, ok, c.ok, brief(a))
		}
		if _, ok := a.CoveredSet(NewPatternSet(pats)); ok != c.ok {
			t.Errorf("CoveredSet(%q, %q) = %v, want %v", c.cmd, c.rules, ok, c.ok)
		}
	}
	// Allow rules never read options canonically: rm -rf:* does not allow rm -fr.
	if _, ok := analyze("rm -fr x", conformanceOpts).Covered(mustPatterns(t, "rm -rf:*")); ok {
		t.Errorf("an allow rule must not widen to other spellings")
	}
}

// TestSuggestionsNeverCoverCode: a suggestion for a leaf that carries code
// spells that code out, so accepting it covers this command and not the
// same program with other code; no rule is suggested for a redirect write.
func TestSuggestionsNeverCoverCode(t *testing.T) {
	t.Parallel()
	cases := []struct{ cmd, other string }{
		{"sed -n '1e id' f", "sed -n '1e rm -rf x' f"},
		{"git -c core.pager=less log", "git -c core.pager='rm -rf x' log"},
		{"tar xf a.tar --to-command=cat", "tar xf a.tar --to-command='rm -rf x'"},
		{"npm run build --script-shell=bash", "npm run build --script-shell=/tmp/evil"},
		{"find . -exec touch {} +", "find . -exec rm {} +"},
		{"PAGER=less git log", "PAGER='rm -rf x' git log"},
		{"python3 -c 'print(1)'", "python3 -c 'import os'"},
		{"make CC=clang", "make CC='rm -rf x'"},
		{"ssh host ls", "ssh host rm -rf x"},
		{"rsync -e ssh a b", "rsync -e 'rm -rf x' a b"},
	}
	for _, c := range cases {
		sugg := analyze(c.cmd, conformanceOpts).Suggest()
		if len(sugg) == 0 {
			t.Errorf("%q: no suggestion", c.cmd)
			continue
		}
		pats := mustPatterns(t, sugg...)
		if _, ok := analyze(c.cmd, conformanceOpts).Covered(pats); !ok {
			t.Errorf("%q: suggestion %q does not cover it", c.cmd, sugg)
		}
		if _, ok := analyze(c.other, conformanceOpts).Covered(pats); ok {
			t.Errorf("%q: suggestion %q also covers %q", c.cmd, sugg, c.other)
		}
	}
	for _, c := range []string{"git status > out.txt", "npm run build > log", "sort f > out"} {
		if s := analyze(c, conformanceOpts).Suggest(); s != nil {
			t.Errorf("%q: suggested %q for a redirect write", c, s)
		}
	}
}

// TestDenyRulesSeeWhatUnmodelledProgramsRun: a program the vocabulary does
// not model may run its arguments, or a command line in one of them or on
// its stdin, as a command (multi-call binaries, sandboxes, session
// managers, network tools, database shells, editors): deny and ask rules
// see every suffix of those words, literally and flag-aware. Modelled
// programs keep their own reading (git commit -m 'rm x' is a message).
func TestDenyRulesSeeWhatUnmodelledProgramsRun(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		// Multi-call binaries and runners outside the vocabulary.
		{"rm:*", "toybox rm x", true},
		{"rm:*", "busybox-static rm x", true},
		{"rm:*", "coreutils --coreutils-prog=rm x", true},
		{"rm:*", "ssh-agent rm x", true},
		{"rm:*", "firejail --quiet rm x", true},
		{"rm:*", "bwrap --bind / / rm x", true},
		{"rm:*", "proot -0 rm x", true},
		{"rm:*", "perf stat -- rm x", true},
		{"rm:*", "cpulimit -l 5 rm x", true},
		{"rm:*", "caffeinate -i rm x", true},
		{"rm:*", "dbus-launch rm x", true},
		{"rm:*", "machinectl shell c /bin/rm x", true},
		{"rm:*", "sudo toybox rm x", true},
		{"rm:*", "timeout 5 toybox rm x", true},
		// Command lines in one word: session managers, network tools,
		// shell builtins with an editor, database shells, editors.
		{"rm:*", "tmux new -d 'rm x'", true},
		{"rm:*", "tmux new-session -d 'ls; rm x'", true},
		{"rm:*", "tmux run-shell 'echo a && rm x'", true},
		{"rm:*", "screen -dm sh -c 'rm x'", true},
		{"rm:*", "socat - EXEC:'rm x'", true},
		{"rm:*", "socat - SYSTEM:'ls|rm x'", true},
		{"rm:*", "nc -e 'rm x' h 1", true},
		{"rm:*", "ncat --sh-exec='rm x' h 1", true},
		{"rm:*", "fc -e rm", true},
		{"rm:*", "sqlite3 db '.shell rm x'", true},
		{"rm:*", "psql -c '\\! rm x'", true},
		{"rm:*", "mysql -e 'system rm x'", true},
		{"rm:*", "emacs --batch --eval '(shell-command \"rm x\")'", true},
		{"rm:*", "mytool --on-exit='rm -rf x'", true},
		{"rm:*", "mytool '--hook=$(rm x)'", true},
		// The same on stdin: here-strings, here-documents, echo piped.
		{"rm:*", "ed -s f <<< '!rm x'", true},
		{"rm:*", "echo '!rm x' | ed f", true},
		{"rm:*", "sqlite3 db <<< '.system rm x'", true},
		{"rm:*", "sqlite3 db <<'E'\n.shell rm x\nE", true},
		// Flag-aware through them.
		{"rm -rf:*", "toybox rm -fr x", true},
		{"rm -rf:*", "ssh-agent rm --recursive --force x", true},
		{"rm -rf:*", "tmux new -d 'rm -r -f x'", true},
		{"git push --force:*", "firejail git push -f", true},
		{"git push --force:*", "screen -dm git push origin +main", true},
		{"rm -rf:*", "toybox rm x", false},
		// No command there.
		{"rm:*", "mytool build", false},
		{"rm:*", "mytool --name=rmx", false},
		{"rm:*", "mytool -m 'remove files'", false},
		{"rm:*", "sqlite3 db 'select 1'", false},
		// Modelled programs are read with their spec.
		{"rm:*", "git commit -m 'rm x'", false},
		{"rm:*", "echo rm x", false},
		{"rm:*", "grep -r 'rm x' .", false},
		{"rm:*", "cat <<< 'rm x'", false},
	})
}

// An unmodelled program with more words than permopa looks through runs
// what it cannot see: every deny rule hits it.
func TestUnmodelledProgramWithManyWordsFailsClosed(t *testing.T) {
	t.Parallel()
	cmd := "mytool" + strings.Repeat(" a", maxOperandViews+1)
	a := analyze(cmd, conformanceOpts)
	if a.MatchAny(mustPatterns(t, "shutdown:*")) != 0 {
		t.Fatalf("a deny rule does not hit %d words of an unmodelled program\n%s", maxOperandViews+1, brief(a))
	}
}
