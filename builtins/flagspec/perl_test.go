package flagspec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// perlFilters are one-liners a token subset of Perl once judged read-only
// (issue 26): perl is never read-only now (docs/shell.md, "Wrappers"), these
// included.
var perlFilters = [][]string{
	{"perl", "-ne", `print $1 if m/\.([^.\/]+)$/`},
	{"perl", "-F\\n", "-0777", "-anE", `say join ",", @F`},
	{"perl", "-n", "-a", "-e", `$sum+=$S[1]; print "$sum\n"`},
	{"perl", "-ne", `print ($l = $_) if (length > length($l));`, "filename"},
	{"perl", "-ne", `print if ( !eof  )`},
	{"perl", "-lane", `print $F[0]`, "notes.txt", "-"},
	{"perl", "-pe", `s/(\w+)/<$1>/g`},
	{"perl", "-ne", `print unless /^#/`},
	{"perl", "-nle", `print length`},
	{"perl", "-e", `print "hello\n"`},
	{"perl", "-ne", `print sort @F`},
	{"perl", "-ne", `print if $a <=> $b`},
	{"perl", "-lne", `$n++ if m/(?:ab|cd)$/i; print $n`},
	{"perl", "-ne", `@w = split /,/, $_; print join("\t", @w[0..2]), "\n"`},
	{"perl", "-F,", "-lane", `print $F[1], " ", $F[-1], " @F $1"`},
	{"perl", "-ne", `$n++; print $n % 2, "\n"`},
	{"perl", "-ne", `$n++ / 2; print $n / 2, "\n"`},
	{"perl", "-lne", `my ($a, $b) = split /,/; print $b if $_ =~ /x/`},
	{"perl", "-lane", `print sort(@F), join " ", sort keys @F`},
	{"perl", "-lne", `print for split ' ', $_; print split "\t"`},
	{"perl", "-e", `print "a@ b", 1 .. 3;`, "-e", `print 2`},
	{"perl", "-F:", "-lane", `print $F[0]`},
}

// perlNotReadOnly are refused: each runs a program, writes, reads the
// environment or a file the command does not name, loads a module, or is
// outside the subset (TestFindGlobsAndXargsTextAgainstHostileNames in
// builtins/bash runs bites of them under strace).
var perlNotReadOnly = [][]string{
	{"perl", "-ne", `system("touch pwned")`},
	{"perl", "-ne", `print CORE'system("touch pwned")`},
	{"perl", "-ne", `print CORE::system("touch pwned")`},
	{"perl", "-ne", `$x / system("touch pwned") / 2`},
	{"perl", "-ne", `print $x /"(?{system 1})"/`},
	{"perl", "-ne", `if (1) { } /"(?{ system 1 })"/`},
	{"perl", "-e", `print "@{[ system(q(touch pwned)) ]}"`},
	{"perl", "-e", `print "${\ system(q(touch pwned)) }"`},
	{"perl", "-e", `print "$F[ system(q(touch pwned)) ]"`},
	{"perl", "-e", `"x" =~ m/(?{ system("touch pwned") })/`},
	{"perl", "-pe", `s/x/system("touch pwned")/e`},
	{"perl", "-e", `print $ENV{HOME}`},
	{"perl", "-e", `print %ENV`},
	{"perl", "-ne", `push @ARGV, "|touch pwned"`},
	{"perl", "-e", `$x="ARGV"; push @$x, "|touch pwned"; while (<>) {}`},
	{"perl", "-e", `print <*>`},
	{"perl", "-e", `print <STDIN>`},
	{"perl", "-e", `open(F, ">pwned")`},
	{"perl", "-Mstrict", "-ne", `print`},
	{"perl", "-i", "-pe", `s/a/b/`, "notes.txt"},
	{"perl", "-e", `do "x"`},
	{"perl", "-e", `require x`},
	{"perl", "-e", "print `touch pwned`"},
	{"perl", "-e", `print qx(touch pwned)`},
	{"perl", "-ne", `print -s/x/;system(1);/`},
	{"perl", "-ne", `print *s/x/;system(1);/`},
	{"perl", "-ne", `print`, "|touch pwned"},
	{"perl", "-ne", `print`, "touch pwned|"},
	{"perl", "-ne", `print`, ">pwned"},
	{"perl", "-ne", `print`, "*.txt"},
	{"perl", "-ne", `print`, "+<x"},
	{"perl", "-ne", `print`, "+x"},
	{"perl", "-ne", `print`, "--", "-rf"},
	{"perl", "-F/x/;system(q(touch pwned));#", "-ane", `print`},
	{"perl", "-e", `print "\N{U+41}"`},
	{"perl", "-e", `$0 = "x"`},
	{"perl", "-e", `$^I = ""`},
	{"perl", "-e", `print 1 # x`},
	{"perl", "-e", `print STDERR 1`},
	{"perl", "-e", `eval q{system 1}`},
	{"perl", "-e", `print $x->{y}`},
	{"perl", "-e", `print &system(1)`},
	{"perl", "-e", `$s = "CORE::rmdir"; print sort $s 1, 2`},
	{"perl", "-e", `print sort { $a <=> $b } @F`},
	{"perl", "-e", `print "$F[1]"`},
	{"perl", "-e", `print %h`},
	{"perl", "-ne", `say $x "y"`}, // no -E: an indirect method call
	{"perl", "-e", `print __FILE__`},
	{"perl", "-e", `print $x::y`},
	{"perl", "-e", `print <<EOF`},
	{"perl", "-e", `y/a/b/`},
	{"perl", "-e", `print -e "x"`},
	{"perl", "-e", `print "a" =~ /\p{IsFoo}/`},
	{"perl", "-c", "-e", `BEGIN { system 1 }`},
	{"perl", "-d", "-e", "1"},
	{"perl", "-x", "script"},
	{"perl", "script.pl"},
	{"perl", "-ne"},
	{"perl", "-e", `$h{a} %system "touch pwned"`},
	{"perl", "-e", `print "$x[1][system(q(touch pwned))]"`},
	{"perl", "-e", `print "$x[1]{system(q(touch pwned))}"`},
	{"perl", "-ne", `print if m/$x[1][ system(q(touch pwned)) ]/`},
	{"perl", "-e", `print eof %system "touch pwned"`},
	{"perl", "-e", `print length %system "touch pwned"`},
	// Outside the subset since its review (issue 26).
	{"perl", "-lne", `print sort +$s @F`},
	{"perl", "-lne", `print sort x @F`},
	{"perl", "-lne", `print sort(eq @F)`},
	{"perl", "-ne", `print if $_ !~ $x`},
	{"perl", "-ne", `print split $x, $_`},
	{"perl", "-ne", `print if $_ ~~ $x`},
	{"perl", "-ne", `my Foo $x; print`},
	{"perl", "-ne", `print split("\\p{IsFoo}", $_)`},
	{"perl", "-F\tx", "-ane", "print"},
}

// perlReviewBites were read-only before the independent review of the
// subset (issue 26); each runs a program, writes or loads a module with
// the real perl (TestPerlReviewBitesAgainstRealPerl).
var perlReviewBites = [][]string{
	{"perl", "-F, -esystem(q(touch pwned));", "-ane", "print"}, // -F ends at a blank, the rest are switches
	{"perl", "-F, -i", "-pe", `s/h/X/`, "notes.txt"},
	{"perl", "-F, -MPOSIX", "-ane", "print"},
	{"perl", `-F\N{SPACE}`, "-ane", "print"},                            // a run-time pattern loads _charnames.pm
	{"perl", "-e", "print 1", "-e", `/ 2; system "touch pwned"; 3 / 1`}, // one program, joined by newlines
	{"perl", "-e", "1;\n=for x \"\n=cut\nsystem 'touch pwned'; #\""},    // POD
	{"perl", "-e", "=pod \"\n=cut\nsystem 'touch pwned'; #\""},
	{"perl", "-e", `print 1./ 2; system "touch pwned"; 1 / 1`},
	{"perl", "-e", `$x++ / 2; system "touch pwned"; 1 / 1`},
	{"perl", "-e", `$x-- / 2; system "touch pwned"; 1 / 1`},
	{"perl", "-e", `print $_'x; system "touch pwned"; #'`},
	{"perl", "-e", `print "$_'x[1][system(q(touch pwned))]"`},
	{"perl", "-e", `print "$_::x[system(q(touch pwned))]"`},
	{"perl", "-e", `print "@_'x[system(q(touch pwned))]"`},
	{"perl", "-e", `print "@-[system(q(touch pwned))]"`},
	{"perl", "-e", `print "@+[system(q(touch pwned))]"`},
	{"perl", "-e", `print "@1[system(q(touch pwned))]"`},
	{"perl", "-e", `print "@'x[system(q(touch pwned))]"`},
	{"perl", "-ne", `print if m/@1[system(q(touch pwned))]/`},
	{"perl", "-lne", `$s = "CORE::mkdir"; print sort($s 1, 2)`}, // mkdir per line
	{"perl", "-lne", "$s = \"CORE::mkdir\"; print sort\n( $s 1, 2)"},
	{"perl", "-ne", `$x = '\N{SPACE}'; print if /$x/`}, // run-time patterns load _charnames.pm
	{"perl", "-ne", `$x = "\\N{SPACE}"; print if m/a$x/`},
	{"perl", "-ne", `print if s/$_//`},
	{"perl", "-ne", `print if $_ =~ '\N{SPACE}'`},
	{"perl", "-ne", `print split '\N{SPACE}', $_`},
	{"perl", "-ne", `my $x : lc; print`}, // loads attributes.pm
	{"perl", "-ne", `our ($x) : lc; print`},
}

// TestPerlIsNeverReadOnly: no perl command line is read-only, the text
// filters included; the bites of the review of the subset that once allowed
// them (perlReviewBites) are each a program run under it.
func TestPerlIsNeverReadOnly(t *testing.T) {
	t.Parallel()
	for _, argv := range append(append(perlFilters, perlNotReadOnly...), perlReviewBites...) {
		if v := Judge(argv); v.ReadOnly {
			t.Errorf("%q: read-only", argv)
		}
	}
}

// TestPerlReviewBitesAgainstRealPerl runs every bite of perlReviewBites
// with the real perl under strace, in a directory of its own whose
// notes.txt holds a line that is itself a run-time pattern: each must run
// a program, change the directory or open a module (.pm): why perl is
// never read-only.
func TestPerlReviewBitesAgainstRealPerl(t *testing.T) {
	t.Parallel()
	unavailable := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; CI is set, so this proof fails instead of skipping", why)
		}
		t.Skip(why)
	}
	perl, err := exec.LookPath("perl")
	if err != nil {
		unavailable("perl not installed")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		unavailable("strace not installed")
	}
	if out, err := exec.Command(strace, "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		unavailable(fmt.Sprintf("strace cannot trace here: %v %s", err, out))
	}
	const notes = "h\\N{SPACE}\n"
	quick := quickFirst{}
	for _, argv := range perlReviewBites {
		// Without -tags slow the first bite runs under strace; .ci/run
		// runs them all (quickFirst, docs/development.md);
		// TestPerlIsNeverReadOnly judges every one.
		if !quick.take("bites") {
			continue
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(notes), 0o644); err != nil {
			t.Fatal(err)
		}
		trace := filepath.Join(t.TempDir(), "trace")
		args := append([]string{"--seccomp-bpf", "-f", "-qq", "-e", "trace=execve,openat", "-o", trace, perl}, argv[1:]...)
		if argv[len(argv)-1] != "notes.txt" {
			args = append(args, "notes.txt")
		}
		run := exec.Command(strace, args...)
		run.Dir = dir
		run.Env = []string{"LANG=C", "PATH=/usr/bin:/bin"}
		run.Run() // compile errors after the effect are expected
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var effects []string
		if n := strings.Count(string(b), "execve("); n > 1 {
			effects = append(effects, "runs a program")
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "openat(") || strings.Contains(l, " openat(") {
				if strings.Contains(l, `.pm"`) && !strings.Contains(l, "= -1") {
					effects = append(effects, "loads a module")
					break
				}
			}
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			effects = append(effects, "creates a file")
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != notes {
			effects = append(effects, "rewrites notes.txt")
		}
		if len(effects) == 0 {
			t.Errorf("%q: no effect with the real perl: the case proves nothing", argv)
		}
		if v := Judge(argv); v.ReadOnly {
			t.Errorf("%q: read-only, but %s", argv, strings.Join(effects, ", "))
		}
	}
}
