package flagspec

import (
	"slices"
	"strings"
	"testing"
)

// What a read-only program reads besides its argv (issue 23). man: a
// man-db configuration redefines the programs man runs (man -C f runs f's
// DEFINE nroff), and a page can include any file with .so or .mso, so a
// page from outside the system's manual hierarchies is not read-only:
// checked with man-db 2.11 under strace (an operand holding a slash is
// opened as a file and printed; -M DIR reads DIR's pages; nothing is read
// from the working directory).
func TestManReadsOnlySystemPages(t *testing.T) {
	runCases(t, []tc{
		{cmd: "man ls", ro: true},
		{cmd: "man 3 printf", ro: true},
		{cmd: "man -k socket", ro: true},
		{cmd: "man -f ls", ro: true},
		{cmd: "man -a --nj --nh ls", ro: true},
		{cmd: "man -w ls", ro: true},
		{cmd: "man -s 1 -L fr ls", ro: true},

		{cmd: "man --nj -C /dev/fd/63 ls", why: "configuration"},
		{cmd: "man -C man.conf ls", why: "configuration"},
		{cmd: "man -Cman.conf ls", why: "configuration"},
		{cmd: "man --config-file=man.conf ls", why: "configuration"},
		{cmd: "man --config-f=man.conf ls", why: "configuration"},
		{cmd: "man --conf man.conf ls", why: "configuration"},
		{cmd: "man -aC man.conf ls", why: "configuration"},
		{cmd: "man -M mp ls", why: "include any file"},
		{cmd: "man --manpath=mp ls", why: "include any file"},
		{cmd: "man --manp mp ls", why: "include any file"},
		{cmd: "man -Mmp ls", why: "include any file"},
		{cmd: "man ~/.ssh/id_rsa", why: "is a file man opens", reads: []string{"~/.ssh/id_rsa"}},
		{cmd: "man /etc/shadow", why: "is a file man opens", reads: []string{"/etc/shadow"}},
		{cmd: "man /proc/self/environ", why: "is a file man opens"},
		{cmd: "man ./page.1", why: "is a file man opens", reads: []string{"./page.1"}},
		{cmd: "man ls ../x/page.1", why: "is a file man opens"},
		{cmd: "man -- ./page.1", why: "is a file man opens"},
		{cmd: "man 1 dir/", why: "is a file man opens"},
		{cmd: "man -l page.1", why: "troff"},
		{cmd: "man --local-file page.1", why: "troff"},
		{cmd: "man -P cat ls", why: "pager"},
		{cmd: "man --pager=cat ls", why: "pager"},
		{cmd: "man -H ls", why: "browser"},
		{cmd: "man --html=firefox ls", why: "browser"},
		{cmd: "man -X ls", why: "browser"},
		{cmd: "man -T ps ls", why: "troff"},
		{cmd: "man -Tps ls", why: "troff"},
		{cmd: "man -p t ls", why: "troff"},
		{cmd: "man --preprocessor=e ls", why: "troff"},
		{cmd: "man -t ls", why: "troff"},
		{cmd: "man -Z ls", why: "troff"},
		{cmd: "man -u ls", why: "caches"},
		{cmd: "man -m ../../../tmp/x/mp ls", why: "include any file"},
		{cmd: "man --systems=NewOS ls", why: "include any file"},
		{cmd: "man -L ../../x ls", why: "outside the manual hierarchies"},
		{cmd: "man --locale=../../x ls", why: "outside the manual hierarchies"},
		{cmd: "man -s 1/../../../x ls", why: "outside the manual hierarchies"},
		{cmd: "man -S1/../x ls", why: "outside the manual hierarchies"},
		{cmd: "man -e ../x ls", why: "outside the manual hierarchies"},
		{cmd: "man -E ../x ls", why: "outside the manual hierarchies"},
		{cmd: "man -R ../x ls", why: "outside the manual hierarchies"},
		{cmd: "man -L fr -s 3 -e gz -E UTF-8 ls", ro: true},
	})
}

// info: an Info file's Indirect table names the files holding its nodes,
// any file; only the system's Info directories are read-only. A name no
// Info node has is passed to man -a (texinfo 6.8): an operand man would
// take for an option is refused, and man-db's page cache is named.
func TestInfoReadsOnlySystemFiles(t *testing.T) {
	runCases(t, []tc{
		{cmd: "info ls", ro: true},
		{cmd: "info coreutils ls", ro: true},
		{cmd: "info -n Top emacs", ro: true},
		{cmd: "info -f ./x.info", why: "Indirect"},
		{cmd: "info --file=x.info", why: "Indirect"},
		{cmd: "info --fi x.info", why: "Indirect"},
		{cmd: "info -d . ls", why: "Indirect"},
		{cmd: "info --directory=docs ls", why: "Indirect"},
		{cmd: "info ./x.info", why: "is a file info opens", reads: []string{"./x.info"}},
		{cmd: "info ~/.ssh/id_rsa", why: "is a file info opens", reads: []string{"~/.ssh/id_rsa"}},
		{cmd: "info -- -Cman.conf", why: "reaches man as an option"},
		{cmd: "info -- --config-file=man.conf", why: "reaches man as an option"},
		{cmd: "info -- -u", why: "reaches man as an option"},
		{cmd: "info -- --html=x", why: "reaches man as an option"},
		{cmd: "info -- -lPx", why: "reaches man as an option"},
		{cmd: "info 'bash;touch x'", ro: true}, // one argv of man's, no shell
	})
	for _, cmd := range []string{"info bash", "info nosuchnode 'Some Node'", "info coreutils ls"} {
		if v := Judge(strings.Fields(cmd)); !v.ReadOnly || !slices.Contains(v.CacheWrites, "/var/cache/man") {
			t.Errorf("%q: read-only %v, cache writes %q, want man-db's /var/cache/man named (info falls back to man -a)", cmd, v.ReadOnly, v.CacheWrites)
		}
	}
}
