package flagspec

import (
	"os/exec"
	"strings"
	"testing"
)

// perlReadOnly are one-liners of the closed subset (perl.go): read-only.
var perlReadOnly = [][]string{
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
}

func TestPerlOneLiners(t *testing.T) {
	t.Parallel()
	for _, argv := range perlReadOnly {
		if v := Judge(argv); !v.ReadOnly {
			t.Errorf("%q: not read-only (%s)", argv, v.Reason)
		}
	}
	for _, argv := range perlNotReadOnly {
		if v := Judge(argv); v.ReadOnly {
			t.Errorf("%q: read-only", argv)
		}
	}
	v := Judge([]string{"perl", "-lane", `print $F[0]`, "notes.txt", "-"})
	if strings.Join(v.Reads, " ") != "notes.txt" {
		t.Errorf("reads %q, want notes.txt", v.Reads)
	}
}

// TestPerlReadOnlyAgainstRealPerl compiles every one-liner of the subset
// with the real perl (perl -c would run BEGIN blocks, which the subset has
// none of): each must be a program perl reads, so that the token check
// and perl agree on what is code.
func TestPerlReadOnlyAgainstRealPerl(t *testing.T) {
	t.Parallel()
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("perl not installed")
	}
	for _, argv := range perlReadOnly {
		args := append([]string{"-c"}, argv[1:]...) // -c reads no operand
		out, err := exec.Command(perl, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "syntax OK") {
			t.Errorf("%q: perl does not compile it: %v %s", argv, err, out)
		}
	}
}
