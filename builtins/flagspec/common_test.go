package flagspec

import (
	"strings"
	"testing"
)

// commonReadOnly are everyday read-only commands of coding agents (one per
// line, blank-separated words, no quoting); every one must be read-only.
const commonReadOnly = `ls -lt
ls -ld src
ls --group-directories-first -lah
cat -A file
head -c 100 f
tail -n +5 f
wc -l a b
sort -rn counts
sort -nk2 f
sort -t, -k2,2 -u f
cut -f1,3 -d, f
grep -A 3 -B2 x f
grep --exclude-dir=node_modules -rn TODO .
grep -Po a.b f
grep -rl --include=*.ts useState src
rg -l foo
rg --type go func
rg -tgo -n func
rg -A 3 -F x.y
rg --json foo
find . -type f -name *.go -not -path ./vendor/*
find . -size +1M
find . -mtime -1 -type f
find . -maxdepth 1 -type d -print
find . -name x -print -quit
find . -perm -u+x -type f
find . -empty
find . -path ./node_modules -prune -o -print
git log --oneline --graph --all -n 20
git log --pretty=format:%h%x20%s
git log -1 --format=%cd
git diff HEAD~3..HEAD --stat
git diff --color=never
git show HEAD --name-only
git status -s
git log origin/main..HEAD
git log --author=bob
git rev-parse --short HEAD
git describe --abbrev=0 --tags
git log --grep=fix -i
git blame -w -C file
git diff --staged
git diff --check
git log --name-status
git log -p --follow -- file
git show --stat --oneline HEAD
git ls-files --others --exclude-standard
git log --reverse --no-merges
git shortlog -s -n --all --no-merges
git diff --name-only --diff-filter=M
git log -5 --date=short
git config --get remote.origin.url
git config user.email
git -C ../other status
git log --stat -M
git diff -w --ignore-blank-lines
git show HEAD~2:src/main.go
git log --all --decorate --oneline --simplify-by-decoration
git branch -a --merged main
git tag --sort=-v:refname
git for-each-ref --sort=-committerdate refs/heads/
docker ps --filter name=x
docker logs --since 10m x
docker images -q
docker compose logs -f --tail=100
docker stats --no-stream
docker network ls
npm ls react
npm outdated --json
npm view react versions --json
pip show -f requests
go list -m -json all
go env GOPATH GOROOT
jq -r .version package.json
jq .[0] -c f.json
sed -n 1,20p f
sed -n /start/,/end/p f
awk -F, NR>1 f
du -sh src node_modules
du -h --max-depth=1 .
df -h .
stat -c %y f
file --mime-type f
diff -u a b
diff -rq a b
wc -c f
tree -L 2 -I node_modules
tree -d
which -a python3
uname -srm
date -u +%Y-%m-%dT%H:%M:%SZ
date -r f
md5sum f
sha256sum -c SHA256SUMS
base64 -d f
xxd -l 64 f
od -c f
tr -s ' '
printenv PATH
echo $HOME
ps -o pid,cmd -p 1
gh pr view 12 --json title,body
gh pr checks
gh run view 1 --log-failed
gh issue list --state closed --limit 5
kubectl get pods -o jsonpath={.items[*].metadata.name}
kubectl logs deploy/web --tail=50`

func TestCommonReadOnly(t *testing.T) {
	t.Parallel()
	for _, line := range strings.Split(commonReadOnly, "\n") {
		if v := Judge(strings.Fields(line)); !v.ReadOnly {
			t.Errorf("%q: not read-only: %s", line, v.Reason)
		}
	}
}
