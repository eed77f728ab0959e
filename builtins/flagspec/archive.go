package flagspec

import "strings"

// Archivers and compressors: their listing, testing and to-stdout forms are
// read-only; anything that creates, extracts to files, or replaces its
// operands is not. Options that run programs of the command's choosing
// (tar -I/--to-command/--checkpoint-action, zstd and xz have none) are denied.

// tar: -t/--list, -d/--diff and -x with -O/--to-stdout only. The archive
// (-f) is read; a name with a colon before any slash is a remote archive
// reached through rsh/ssh (unless --force-local): network egress. Old-style
// clusters ("tar tvf a.tar") are read as "-t -v -f a.tar" (spec.oldStyle).
// Compressed archives make tar run gzip/bzip2/xz/zstd -d from PATH on
// stdin, which are read-only themselves. The spec is tarSpec (writers.go,
// which reads every option for deny rules); its modes get marks here and
// the options that write or run programs are denied, with the same
// synonyms and roles so that deny rules still see the commands they run.
const tarMarked = `-t|--list@t -d|--diff|--compare@d -x|--extract|--get@x -O|--to-stdout@o -f|--file=@f
	--force-local@l -C|--directory=@c -T|--files-from=@r -X|--exclude-from=@r`

var tarDeny = []denial{
	{`-c|--create -r|--append -u|--update -A|--catenate|--concatenate --delete`, "writes an archive"},
	{`-I|--use-compress-program=x --to-command=x --checkpoint-action=@a -F|--info-script|--new-volume-script=x
		--rsh-command=x --rmt-command=x`, "runs a program of the command's choosing"},
	{`-M|--multi-volume`, "switches volumes, prompting or running scripts"},
	{`-g|--listed-incremental= -G|--incremental --index-file= --volno-file= --level=`, "writes a snapshot, index or volume file"},
	{`--remove-files -U|--unlink-first --recursive-unlink --one-top-level? --backup? --suffix= -W|--verify
		--atime-preserve? --keep-directory-symlink`, "changes files"},
}

func init() {
	tarSpec.allow = tarMarked + " " + tarSpec.allow
	tarSpec.deny = append(tarDeny, tarSpec.deny...)
	tarSpec.never = ""
	commands := tarSpec.check
	tarSpec.check = func(st *state) {
		if commands != nil {
			commands(st)
		}
		checkTar(st)
	}
}

func checkTar(st *state) {
	if !st.has('t') && !st.has('d') && !(st.has('x') && st.has('o')) {
		if st.has('x') {
			st.fail("tar: -x extracts files (only -t, --diff and -x with -O/--to-stdout are read-only)")
		} else {
			st.fail("tar: no read-only mode (-t, --diff, -x -O)")
		}
		return
	}
	// The archive is read (in create mode it is written: trees.go's
	// writerTar names what tar c reads).
	// -C is the directory --diff compares in, -T and -X list names.
	for _, mv := range st.vals {
		if mv.mark == 'f' || mv.mark == 'c' || mv.mark == 'r' {
			st.read(mv.val)
		}
	}
	if st.has('d') {
		// --diff compares members with files on disk.
		for _, o := range st.ops {
			st.read(o)
		}
	}
	checkRemote(st, 'f', 'l')
}

// checkRemote fails when the archive named by an option with mark is a
// remote one ("host:file", no slash before the colon), or may be one (a
// glob or a part only known at run time before any slash), and the option
// with mark local (--force-local) was not given.
func checkRemote(st *state, mark, local byte) {
	if local != 0 && st.has(local) {
		return
	}
	for _, mv := range st.vals {
		if mv.mark != mark {
			continue
		}
		// A part only known at run time or a glob may hold the colon:
		// tar -tf a* opens ab:c on host ab (issue 26).
		if i := strings.IndexAny(mv.val, ":*?["+Dynamic); i > 0 && !strings.Contains(mv.val[:i], "/") ||
			i == 0 && mv.val[0] != ':' {
			st.egress(mv.val)
		}
	}
}

// compressor builds the spec of a compressor whose to-stdout, list and
// test forms are read-only (allow must mark them @c, @l, @t). With no file
// operand (or only "-") it filters stdin to stdout. stdout: the program
// always writes to stdout (zcat, bzcat, xzcat).
func compressor(allow string, deny []denial, stdout bool) *spec {
	return &spec{
		allow: allow,
		deny:  deny,
		num:   true,
		ops:   opsHook,
		check: func(st *state) {
			toStdout := stdout || st.has('c') || st.has('l') || st.has('t')
			if !toStdout {
				for _, o := range st.ops {
					if o != "-" {
						st.fail(st.spec.name + ": replaces " + printable(o) + " (compresses or decompresses in place; -c, -l and -t only read)")
						st.write(o)
					}
				}
			}
			for _, o := range st.ops {
				st.read(o)
			}
		},
	}
}

const gzipAllow = `-a --ascii -c@c --stdout@c --to-stdout@c -d --decompress --uncompress -f --force -k --keep
	-l@l --list@l -L --license -n --no-name -N --name -q --quiet -r --recursive --rsyncable -S= --suffix=
	--synchronous -t@t --test@t -v --verbose -V --fast --best`

const bzip2Allow = `-c@c --stdout@c -d --decompress -z --compress -t@t --test@t -k --keep -f --force -q --quiet
	-v --verbose -s --small -L --license -V --fast --best`

const xzAllow = `-z --compress -d --decompress --uncompress -t@t --test@t -l@l --list@l -k --keep -f --force
	-c@c --stdout@c --to-stdout@c --single-stream --no-sparse -S= --suffix= --files?r --files0?r -F= --format=
	-C= --check= --ignore-check -e --extreme -T= --threads= --block-size= --block-list= --flush-timeout=
	--memlimit-compress= --memlimit-decompress= --memlimit-mt-decompress= -M= --memlimit= --memory=
	--no-adjust -q --quiet -v --verbose --robot -Q --no-warn -H --long-help --info-memory -V --lzma1?
	--lzma2? --x86? --arm? --armthumb? --arm64? --powerpc? --ia64? --sparc? --riscv? --delta?`

// zstd: -o and the output-directory options write files, --rm deletes the
// source, --train writes a dictionary, -b benchmarks (not modelled).
const zstdAllow = `-z --compress -d --decompress --uncompress -t@t --test@t -l@l --list@l -c@c --stdout@c
	-k --keep -f --force -q --quiet -v --verbose -r -D=r --patch-from=r -T? --threads= --ultra --long?
	--fast? -M? --memory= --no-progress --progress --format= --no-check --check -C --exclude-compressed
	--filelist=r --sparse --no-sparse -V -H --single-thread --adapt? --rsyncable --no-dictID -B?
	--block-size= --stream-size= --size-hint= --target-compressed-block-size= --content-size
	--no-content-size --show-default-cparams`

var zstdDeny = []denial{
	{`-o=w --output-dir-flat=w --output-dir-mirror=w`, "writes to an output file or directory"},
	{`--rm`, "removes its source files"},
	{`--train? --train-cover? --train-fastcover? --train-legacy?`, "writes a dictionary"},
	{`-b? -e? -i? --priority=`, "benchmark mode is not modelled"},
}

// lz4 takes an output file as its second operand: at most one operand.
var lz4Spec = func() *spec {
	s := compressor(`-c@c --stdout@c --to-stdout@c -d --decompress --uncompress -z --compress -t@t --test@t
		--list@l -k --keep -f --force -q --quiet -v --verbose -B? --content-size --no-content-size
		--frame-crc --no-frame-crc --sparse --no-sparse --favor-decSpeed --best --fast? -m --multiple
		-r -V`, []denial{{`--rm`, "removes its source files"}}, false)
	s.maxOps = 1
	return s
}()

// unzip lists (-l, -v, -Z), tests (-t), prints members (-c, -p) or the
// comment (-z); anything else extracts. -M pipes output through its own
// pager; -T sets the archive's time; -f and -u are extraction modes. After
// -x come patterns to exclude. "unzip -Z" is zipinfo (judged as such).
var unzipSpec = &spec{
	allow: `-l@m -v@m -t@m -c@m -p@m -z@m -q -a -b -B -C -L -n -o -j -X -U -V -W -K -s -D -x -d=@d -P=
		-O= -I= -h -hh`,
	deny: []denial{
		{`-M`, "pipes its output through a pager"},
		{`-T`, "sets the archive's modification time"},
		{`-f -u -F`, "extracts files"},
	},
	ops:   opsHook,
	noStd: true,
	check: func(st *state) {
		if len(st.ops) == 0 {
			if len(st.argv) == 2 && st.argv[1] == "-v" {
				return // the version
			}
		}
		if !st.has('m') {
			st.fail("unzip: extracts files (only -l, -v, -t, -c, -p, -z and -Z are read-only)")
			// The directory it extracts into is written (-d .git/hooks is a
			// dangerous write); the member names are not known.
			if d, ok := st.val('d'); ok {
				st.write(d)
			}
		}
		if len(st.ops) > 0 {
			st.read(st.ops[0])
		}
	},
}

// zipinfo lists an archive; -M pipes through its own pager.
var zipinfoSpec = &spec{
	allow: `-1 -2 -s -m -l -v -h -t -T -U -z -C -x -O= -I=`,
	deny:  []denial{{`-M`, "pipes its output through a pager"}},
	ops:   opsHook,
	noStd: true,
	check: func(st *state) {
		if len(st.ops) > 0 {
			st.read(st.ops[0])
		}
	},
}

// 7z: l (list), t (test), i (formats), h (hashes) only, with a few switches.
// A directory operand is read file by file, through links (7zz l dir, 7zz
// h dir; seen by the vocabulary fuzzer): each operand is a recursive read.
var sevenZipRO = &spec{single: true, noStd: true, allow: `-slt -ba -bd -bb0 -bb1 -bb2 -bb3 -r -r- -y -sccUTF-8 -scsUTF-8 -spd`,
	ops: opsRead, check: func(st *state) {
		for _, o := range st.ops {
			st.tree(o, Tree{Hidden: true})
		}
	}}
var sevenZipSpec = &spec{
	noAbbrev: true,
	subs: map[string]*spec{
		"l": sevenZipRO, "t": sevenZipRO, "h": sevenZipRO,
		"i": {single: true, noStd: true, ops: opsNone},
		"a": {never: "7z a writes an archive"}, "x": {never: "7z x extracts files"},
		"e": {never: "7z e extracts files"}, "d": {never: "7z d changes an archive"},
		"u": {never: "7z u changes an archive"}, "rn": {never: "7z rn changes an archive"},
	},
}

// cpio: -t (list, with or without -i). -o creates an archive from names
// read on stdin and -p copies them (operands decided at run time), -i
// without -t extracts; -F/-I/-O name archives, remote when "host:file".
var cpioSpec = &spec{
	allow: `-t@t --list@t -i --extract -v --verbose -n --numeric-uid-gid -F=r@f --file=r@f -I=r@f
		-E=r --pattern-file=r -H= --format= -f --nonmatching --quiet -B -C= --io-size= --block-size= -c
		--force-local@l -V --dot -b --swap -s --swap-bytes -S --swap-halfwords -m --preserve-modification-time
		--no-absolute-filenames --absolute-filenames --only-verify-crc --to-stdout -d --make-directories
		--no-preserve-owner -R= --owner= --sparse -L --dereference -0 --null -a --reset-access-time`,
	deny: []denial{
		{`-o --create -p --pass-through -O= -A --append`, "writes an archive or copies files named at run time"},
		{`-r --rename -u --unconditional --rsh-command= -M= --message= -e`, "changes or renames files, or runs a program"},
	},
	ops: opsText,
	check: func(st *state) {
		if !st.has('t') {
			st.fail("cpio: only -t (list) is read-only")
		}
		checkRemote(st, 'f', 'l')
	},
}

// ar: the t (table) and p (print) operations with the v, O, D, U, P
// modifiers; the archive is read, members are names. --plugin loads code
// and @file reads more arguments from a file.
var arSpec = &spec{anyArgs: true, check: func(st *state) {
	args := st.argv[1:]
	for len(args) > 0 && (args[0] == "--help" || args[0] == "--version" || args[0] == "-V") {
		args = args[1:]
	}
	if len(args) == 0 {
		if len(st.argv) > 1 {
			return
		}
		st.fail("ar: no operation")
		return
	}
	key := strings.TrimPrefix(args[0], "-")
	op := 0
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case 't', 'p':
			op++
		case 'v', 'O', 'D', 'U', 'P':
		default:
			st.fail("ar: " + printable(string(key[i])) + " in " + printable(args[0]) + " is not a read-only operation or modifier")
			return
		}
	}
	if op != 1 {
		st.fail("ar: one of t or p is needed")
		return
	}
	for i, a := range args[1:] {
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") || strings.Contains(a, Dynamic) {
			st.fail("ar: " + printable(a) + " is not modelled")
			return
		}
		if i == 0 {
			st.read(a)
		}
	}
}}

func init() {
	register(compressor(gzipAllow, nil, false), "gzip")
	register(compressor(gzipAllow+` --decompress`, nil, false), "gunzip")
	register(compressor(gzipAllow, nil, true), "zcat")
	register(compressor(bzip2Allow, nil, false), "bzip2", "bunzip2")
	register(compressor(bzip2Allow, nil, true), "bzcat")
	register(compressor(xzAllow, nil, false), "xz", "unxz", "lzma", "unlzma")
	register(compressor(xzAllow, nil, true), "xzcat", "lzcat")
	register(compressor(zstdAllow, zstdDeny, false), "zstd", "unzstd")
	register(compressor(zstdAllow, zstdDeny, true), "zstdcat")
	register(lz4Spec, "lz4")
	register(unzipSpec, "unzip")
	register(zipinfoSpec, "zipinfo")
	register(sevenZipSpec, "7z", "7za", "7zz")
	register(cpioSpec, "cpio")
	register(arSpec, "ar")
}
