package bash

import "testing"

// Words as bash splits them (issue 23): only space, tab and newline
// separate words; a carriage return, form feed, vertical tab, non-breaking
// or other Unicode space stays inside its word, and a comment ends at its
// line's end even after a backslash. Rules compare words, so a rule for
// "git status" never sees "status\rrm" as "status".

// TestWordsBashDoesNotSplit: allow rules and read-only.
func TestWordsBashDoesNotSplit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd   string
		rules []string
	}{
		{"git status\rrm -rf x", []string{"git status:*", "git status"}},
		{"git status\r\rrm -rf x", []string{"git status:*"}},
		{"git log\r-p", []string{"git log:*", "git log"}},
		{"git status\u00a0rm -rf x", []string{"git status:*"}},
		{"git status\frm -rf x", []string{"git status:*"}},
		{"git status\vrm -rf x", []string{"git status:*"}},
		{"git status\u3000rm", []string{"git status:*"}},
		{"npm test\r&& rm -rf x", []string{"npm test:*", "npm test"}},
		{"ls\r-la", []string{"ls:*"}},
	} {
		a := analyze(c.cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%q is read-only\n%s", c.cmd, brief(a))
		}
		if _, ok := a.Covered(mustPatterns(t, c.rules...)); ok {
			t.Errorf("%q is covered by %q\n%s", c.cmd, c.rules, brief(a))
		}
	}
	// The words themselves.
	for cmd, want := range map[string][]string{
		"git status\rrm -rf x":     {"git", "status\rrm", "-rf", "x"},
		"git status\r\nrm -rf x":   {"git", "status\r"},
		"echo 'a\r\nb' \"c\r\nd\"": {"echo", "a\r\nb", "c\r\nd"},
		"echo a\\\rb":              {"echo", "a\rb"},
	} {
		a := analyze(cmd, conformanceOpts)
		if len(a.Leaves) == 0 || !equalWords(a.Leaves[0].Argv, want) {
			t.Errorf("%q: words %s, want %q", cmd, brief(a), want)
		}
	}
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCommentsEndAtTheLine: a backslash at the end of a comment does not
// continue the line (bash runs the next line as a command of its own).
func TestCommentsEndAtTheLine(t *testing.T) {
	t.Parallel()
	cmds := []string{
		"echo #c\\\nrm -rf x",
		"echo hi # note \\\nrm -rf x",
		"# c\\\nrm -rf x",
		"echo #a\\\n#b\\\nrm -rf x",
		"ls #\\\nrm -rf x",
		"(echo #c\\\nrm -rf x)",
		"bash -c $'echo #c\\\\\\nrm -rf x'",
		"x=$(echo #c\\\nrm -rf x\n)",
	}
	for _, cmd := range cmds {
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly {
			t.Errorf("%q is read-only\n%s", cmd, brief(a))
		}
		if a.MatchAny(mustPatterns(t, "rm:*")) != 0 || a.MatchAny(mustPatterns(t, "rm -rf:*")) != 0 {
			t.Errorf("deny rm:* misses %q\n%s", cmd, brief(a))
		}
		if _, ok := a.Covered(mustPatterns(t, "echo:*", "ls:*")); ok {
			t.Errorf("%q is covered by echo:*, ls:*\n%s", cmd, brief(a))
		}
	}
	// Deny and ask rules see "status\rrm" as one word too: no literal hit
	// of "git status" (the exact rule) on it.
	checkDenyTable(t, []ruleCase{
		{"git status", "git status\rrm", false},
		{"git status:*", "git status\rrm", false},
		{"git:*", "git status\rrm", true},
		{"rm:*", "git status\r; rm x", true},
		{"rm:*", "git status\r\nrm x", true},
	})
}

// TestLongOptionSpellings: a deny or ask rule naming an option hits every
// spelling the program reads as that option: short, long, any unambiguous
// prefix of the long one (GNU getopt_long), with its value glued or not.
// An ambiguous prefix is an option permopa cannot place: it hits every rule
// of the program.
func TestLongOptionSpellings(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		{"sed -i:*", "sed --in-place s/a/b/ f", true},
		{"sed -i:*", "sed --in-pl s/a/b/ f", true},
		{"sed -i:*", "sed --in-place=.bak s/a/b/ f", true},
		{"sed -i:*", "sed --in=.bak s/a/b/ f", true},
		{"sed -i:*", "sed -n -i.bak s/a/b/ f", true},
		{"sed -i:*", "sed -ni s/a/b/ f", true},
		{"sed --in-place:*", "sed -i s/a/b/ f", true},
		{"sed -i:*", "sed -n s/a/b/ f", false},
		{"sed -i:*", "sed --s p f", true},
		{"sed -i:*", "sed $OPT p f", true},
		{"sed -i:*", "sed --quiet s/a/b/ f", false},
		{"sed -n:*", "sed --quiet p f", true},
		{"sed -n:*", "sed --sil p f", true},
		{"sed -E:*", "sed -r p f", true},
		{"chmod -R:*", "chmod --recursive 777 x", true},
		{"chmod -R:*", "chmod --rec 777 x", true},
		{"chmod -R:*", "chmod -v --recurs 777 x", true},
		{"chmod --recursive:*", "chmod -R 777 x", true},
		{"chmod -R:*", "chmod 777 x", false},
		{"chown -R:*", "chown --recursive u x", true},
		{"chgrp -R:*", "chgrp --recursive g x", true},
		{"cp -l:*", "cp --link a b", true},
		{"cp -s:*", "cp --symbolic-link a b", true},
		{"mv -f:*", "mv --force a b", true},
		{"mv -f:*", "mv --forc a b", true},
		{"ln -s:*", "ln --symbolic a b", true},
		{"ln -s:*", "ln --sym a b", true},
		{"mkdir -p:*", "mkdir --parents a", true},
		{"touch -d:*", "touch --date=now f", true},
		{"grep -r:*", "grep --recursive x .", true},
		{"grep -r:*", "grep --recur x .", true},
		{"tar -x:*", "tar --extract -f a.tar", true},
		{"tar -x:*", "tar --extr -f a.tar", true},
		{"tar -x:*", "tar xf a.tar", true},
		{"rm -rf:*", "rm --recursive --force x", true},
		{"shred -n:*", "shred --iterations=1 f", true},
		{"sort -o:*", "sort --output=f x", true},
		{"sort -o:*", "sort --outp=f x", true},
		{"truncate -s:*", "truncate --size=0 f", true},
		{"date -s:*", "date --set=now", true},
		{"install -m:*", "install --mode=755 a b", true},
	})
}

// TestSubcommandSpellings: a deny or ask rule naming a subcommand hits it
// under every name the program runs it by (npm's aliases and unique
// prefixes, docker's management commands), after global options, and
// when permopa cannot place the subcommand.
func TestSubcommandSpellings(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		{"npm publish:*", "npm pub", true},
		{"npm publish:*", "npm publ --tag next", true},
		{"npm publish:*", "npm publish", true},
		{"npm publish:*", "npm --prefix . publish", true},
		{"npm publish:*", "npm -g publish", true},
		{"npm publish:*", "npm --registry=http://x publish", true},
		{"npm publish:*", "npm -l false publish", true},
		{"npm publish:*", "npm --usage true pub", true},
		{"npm publish:*", "npm --foo publish", true},
		{"npm publish:*", "npm -l false pack", false},
		{"npm publish:*", "npm pack", false},
		{"npm publish:*", "npm view x", false},
		{"npm install:*", "npm i left-pad", true},
		{"npm install:*", "npm add left-pad", true},
		{"npm install:*", "npm isntall left-pad", true},
		{"npm install:*", "npm in left-pad", true},
		{"npm uninstall:*", "npm rm x", true},
		{"npm uninstall:*", "npm r x", true},
		{"npm uninstall:*", "npm un x", true},
		{"npm test:*", "npm t", true},
		{"npm test:*", "npm tst", true},
		{"npm run:*", "npm run-script build", true},
		{"npm run:*", "npm rum build", true},
		{"npm run:*", "npm urn build", true},
		{"npm run:*", "npm runScript build", true},
		{"npm run-script:*", "npm run build", true},
		{"npm exec:*", "npm x cowsay", true},
		{"npm exec:*", "npm exe cowsay", true},
		{"npm run build:*", "npm rum build", true},
		{"npm run build:*", "npm rum", false},
		{"docker run:*", "docker container run x", true},
		{"docker run:*", "docker --context x container run y", true},
		{"docker exec:*", "docker container exec x sh", true},
		{"docker rmi:*", "docker image rm x", true},
		{"docker rm:*", "docker container rm x", true},
		{"docker rm:*", "docker image rm x", false},
		{"docker image rm:*", "docker rmi x", true},
		{"docker container run:*", "docker run x", true},
		{"git push:*", "git -C x push", true},
		{"git push:*", "git --git-dir=x push", true},
		{"git push:*", "git -c a.b=c push", true},
		{"git push:*", "git status", false},
		{"npm publish", "npm pub", true},
		{"npm publish", "npm --prefix . publ", true},
		{"npm publish", "npm publish --dry-run", true}, // npm publish's options are not modelled
		{"git status", "git status --short", false},
		{"git status", "git -C d status", true},
		{"npm run build", "npm rum build", true},
		{"docker run x", "docker container run x", true},
		{"docker rmi x", "docker image rm x", true},
		{"git push", "git -C d push", true},
		{"pnpm remove:*", "pnpm rm x", true},
		{"pnpm test:*", "pnpm t", true},
		// yarn 1's aliases (src/cli/aliases.js).
		{"yarn remove:*", "yarn rm x", true},
		{"yarn remove:*", "yarn r x", true},
		{"yarn remove:*", "yarn un x", true},
		{"yarn remove:*", "yarn uninstall x", true},
		{"yarn remove:*", "yarn unlink x", true},
		{"yarn install:*", "yarn i", true},
		{"yarn install:*", "yarn isntall", true},
		{"yarn upgrade:*", "yarn up x", true},
		{"yarn upgrade:*", "yarn update x", true},
		{"yarn login:*", "yarn adduser", true},
		{"yarn run:*", "yarn run-script build", true},
		{"yarn test:*", "yarn t", true},
		{"yarn config:*", "yarn c set x y", true},
		{"yarn tag:*", "yarn dist-tag add x", true},
		{"yarn list:*", "yarn ls", true},
		{"yarn info:*", "yarn v x", true},
		{"yarn remove:*", "yarn add --ignore-scripts x", false},
		{"yarn publish:*", "yarn info x", false},
		// curl's long options as curl 7.88.1 reads them.
		{"curl -T:*", "curl --upload-fi x https://h", true},
		{"curl --upload-file:*", "curl -T x https://h", true},
		{"curl --upload-file:*", "curl -sT x https://h", true},
		{"curl -o:*", "curl --outp f https://h", true}, // ambiguous: open
		{"curl --output-dir:*", "curl --output-d /tmp https://h", true},
		{"curl -o:*", "curl -s https://h", false},
		{"curl -T:*", "curl --user-a x https://h", false},
	})
}

// TestNpmExploreRunsItsCommand: npm explore PKG -- CMD runs CMD.
func TestNpmExploreRunsItsCommand(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		{"rm:*", "npm explore lodash -- rm x", true},
		{"rm -rf:*", "npm explore lodash -- rm -fr x", true},
		{"rm:*", "npm explore lodash -- 'rm x'", true},
		{"rm:*", "npm explore lodash rm x", true},
		{"rm:*", "npm explore lodash -- 'ls; rm x'", true},
		{"rm:*", "npm explore lodash -- ls", false},
	})
	if a := analyze("npm explore lodash -- ls", conformanceOpts); a.ReadOnly {
		t.Errorf("npm explore is read-only\n%s", brief(a))
	}
}

// TestCommandsGitRunsForItsRemote: --upload-pack, --receive-pack, -c
// settings that name programs and ext:: URLs run a command; deny rules see
// it (a literal one is parsed, an ext:: URL runs what permopa cannot read).
func TestCommandsGitRunsForItsRemote(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		{"rm:*", "git ls-remote --upload-pack='rm x' .", true},
		{"rm:*", "git ls-remote --upload-pack 'rm x' .", true},
		{"rm:*", "git ls-remote -u 'rm x' .", true},
		{"rm:*", "git ls-remote -u'rm x' .", true},
		{"rm:*", "git ls-remote --upload-p='rm x' .", true},
		{"rm:*", "git fetch --upload-pack='rm x' .", true},
		{"rm:*", "git pull --upload-pack='rm x' .", true},
		{"rm:*", "git clone -u 'rm x' . d", true},
		{"rm:*", "git push --receive-pack='rm x' .", true},
		{"rm:*", "git -c core.sshCommand='rm x' fetch o", true},
		{"rm:*", "git ls-remote 'ext::sh -c rm% x'", true},
		{"rm:*", "git fetch 'ext::sh -c rm% x'", true},
		{"rm:*", "git pull 'ext::sh -c rm% x' main", true},
		{"rm:*", "git clone 'ext::sh -c rm% x' d", true},
		{"rm:*", "git push 'ext::sh -c rm% x' main", true},
		{"rm:*", "git push origin main", false},
		{"rm:*", "git ls-remote origin", false},
	})
}

// TestMovedOrLinkedFileIsRead: the source of a move or a hard link is
// read (its contents leave the path Read rules guard); a symbolic link is
// read through later, where paths are resolved through it.
func TestMovedOrLinkedFileIsRead(t *testing.T) {
	t.Parallel()
	key := conformanceOpts.Home + "/.ssh/id_rsa"
	for _, cmd := range []string{
		"mv ~/.ssh/id_rsa k", "mv -f ~/.ssh/id_rsa ~/.ssh/id_rsa.pub d/", "mv -t d ~/.ssh/id_rsa",
		"ln ~/.ssh/id_rsa k", "ln -f ~/.ssh/id_rsa", "ln -t d ~/.ssh/id_rsa", "link ~/.ssh/id_rsa k",
		"cp -l ~/.ssh/id_rsa k", "cp --link ~/.ssh/id_rsa k",
	} {
		a := analyze(cmd, conformanceOpts)
		found := false
		for _, r := range a.Reads {
			found = found || r == key
		}
		if !found {
			t.Errorf("%q does not read %s\n%s", cmd, key, brief(a))
		}
	}
	if a := analyze("mv a b", conformanceOpts); len(a.Reads) != 1 || a.Reads[0] != conformanceOpts.Cwd+"/a" {
		t.Errorf("mv a b reads %q, want only a", a.Reads)
	}
}

// TestGitOptionSpellings: git's parse-options reads short and long
// spellings, and unambiguous prefixes, as one option.
func TestGitOptionSpellings(t *testing.T) {
	t.Parallel()
	checkDenyTable(t, []ruleCase{
		{"git clean -f:*", "git clean --force", true},
		{"git clean -f:*", "git clean --forc -d", true},
		{"git clean --force:*", "git clean -fd", true},
		{"git branch -m:*", "git branch --move a b", true},
		{"git branch -c:*", "git branch --copy a b", true},
		{"git push -u:*", "git push --set-upstream origin x", true},
		{"git push -n:*", "git push --dry-run", true},
		{"git push --force:*", "git push --forc", true},
		{"git branch -d:*", "git branch --del x", true},
		{"git config -e:*", "git config --edit", true},
		{"git tag -v:*", "git tag --verify x", true},
		{"git branch -u:*", "git branch --set-upstream-to=o/x", true},
		{"git branch -r:*", "git branch --remotes", true},
		{"git grep -O:*", "git grep --open-files-in-pager=vi x", true},
		{"git archive -o:*", "git archive --output=x.tar HEAD", true},
		{"git clean -f:*", "git clean -n", false},
	})
}

// TestBraceExpansionAsBashReadsIt: bash keeps looking for a closing brace
// after a group without a comma and treats quoted braces and commas as
// text, so "{a\,b}\{,--compress-program=sh}" is the words "a,b}{" and
// "--compress-program=sh" to it (mvdan.cc/sh reads one word): such a word
// is unanalysable, never read-only.
func TestBraceExpansionAsBashReadsIt(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"sort {a\\,b}\\{,--compress-program=sh} x",
		"cat {a}\\{,--x,}",
		"ls {x'{'y,z}",
		"grep -r x {a\\}b,c}",
		"rg x {a}{b,--pre=sh}",
	} {
		a := analyze(cmd, conformanceOpts)
		if a.ReadOnly || a.Analysable {
			t.Errorf("%q: read-only %v, analysable %v\n%s", cmd, a.ReadOnly, a.Analysable, brief(a))
		}
	}
	for cmd, want := range map[string][]string{
		"echo {a,b}c":     {"echo", "ac", "bc"},
		"echo {1..3}":     {"echo", "1", "2", "3"},
		"echo x{,}":       {"echo", "x", "x"},
		"echo {,}":        {"echo"},
		"echo ''{,}":      {"echo", "", ""},
		"echo {}":         {"echo", "{}"},
		"echo x=~/a":      {"echo", "x=/home/u/a"},
		"echo x=~/a{b,c}": {"echo", "x=~/ab", "x=~/ac"},
		"echo --o=~/a":    {"echo", "--o=~/a"},
		"echo x=a:~/b:~":  {"echo", "x=a:/home/u/b:/home/u"},
		"echo x=y=~/a":    {"echo", "x=y=~/a"},
		"echo a {} +":     {"echo", "a", "{}", "+"},
	} {
		a := analyze(cmd, conformanceOpts)
		if len(a.Leaves) == 0 || !equalWords(a.Leaves[0].Argv, want) {
			t.Errorf("%q: words %s, want %q", cmd, brief(a), want)
		}
	}
}
