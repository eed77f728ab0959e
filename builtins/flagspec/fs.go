package flagspec

import "strings"

// Filesystem commands (docs/shell.md): never read-only, but when every option
// is understood their write targets are exactly the operands listed in
// Writes, so the policy can allow them inside the working directories.

// mkdir creates directories (the operands).
var mkdirSpec = &spec{
	allow: `-p --parents -m= --mode= -v --verbose -Z --context?`,
	never: "mkdir creates directories",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			st.write(o)
		}
	},
}

// touch creates files or changes their times. -r/--reference reads a file.
var touchSpec = &spec{
	allow: `-a -c --no-create -d= --date= -f -h --no-dereference -m -r=r --reference=r -t= --time=`,
	never: "touch creates files and changes their times",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			st.write(o)
		}
	},
}

// rm removes files; -r, -R and --recursive make it recursive.
var rmSpec = &spec{
	allow: `-f|--force -i -I --interactive? --one-file-system --no-preserve-root --preserve-root?
		-r|-R|--recursive@r -d|--dir -v|--verbose -P -W -x`,
	never: "rm removes files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			st.write(o)
		}
		st.v.Recursive = st.has('r')
	},
}

// rmdir removes empty directories; with -p, their parents too.
var rmdirSpec = &spec{
	allow: `-p@p --parents@p -v --verbose --ignore-fail-on-non-empty`,
	never: "rmdir removes directories",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			st.write(o)
			if !st.has('p') {
				continue
			}
			d := strings.TrimRight(o, "/")
			for {
				k := strings.LastIndexByte(d, '/')
				if k <= 0 {
					break
				}
				d = strings.TrimRight(d[:k], "/")
				if d == "" {
					break
				}
				st.write(d)
			}
		}
	},
}

// mv moves files: sources are removed and the destination written, so every
// operand (and -t's directory) is a write target.
var mvSpec = &spec{
	allow: `-b --backup? -f --force -i --interactive -n --no-clobber --no-copy --exchange
		--strip-trailing-slashes -S= --suffix= -t=w@t --target-directory=w@t -T@n --no-target-directory@n
		-u --update? -v --verbose -Z --context --debug -h`,
	never: "mv moves files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			st.write(o)
		}
		// What was at each source is now at the destination.
		ops := st.ops
		// A moved file is read: its contents leave the place Read rules
		// and the credential list guard (mv ~/.ssh/id_rsa k).
		if _, ok := st.val('t'); ok {
			for _, o := range ops {
				st.read(o)
			}
		} else if len(ops) >= 2 {
			for _, o := range ops[:len(ops)-1] {
				st.read(o)
			}
		}
		if t, ok := st.val('t'); ok {
			st.intoWrites(ops, t, false)
			st.links(LinkSame, ops, t, true, false)
		} else if len(ops) >= 2 {
			st.intoWrites(ops[:len(ops)-1], ops[len(ops)-1], st.has('n'))
			st.links(LinkSame, ops[:len(ops)-1], ops[len(ops)-1], len(ops) > 2, st.has('n'))
		}
	},
}

// cp copies files: the sources are read, the destination (the last operand,
// or -t's directory) is written. Hard links (-l, --link) share the source's
// data, so with them the sources count as written too.
var cpSpec = &spec{
	allow: `-a@r --archive@r --attributes-only -b --backup? --copy-contents -d@k -f --force -i --interactive
		-H -l@l --link@l -L@f --dereference@f -n --no-clobber -P@k --no-dereference@k -p --preserve?
		--no-preserve= --parents -R@r -r@r --recursive@r --reflink? --remove-destination --sparse=
		--strip-trailing-slashes -s@s --symbolic-link@s -S= --suffix= -t=w@t --target-directory=w@t
		-T@n --no-target-directory@n -u --update? -v --verbose --keep-directory-symlink -x
		--one-file-system -Z --context? --debug -c -X`,
	never: "cp copies files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		ops := st.ops
		dest, into := "", false
		if t, ok := st.val('t'); ok {
			dest, into = t, true
		} else if len(ops) > 0 {
			dest = ops[len(ops)-1]
			st.write(dest)
			ops = ops[:len(ops)-1]
			into = len(ops) > 1
		}
		for _, o := range ops {
			st.read(o)
			if st.has('r') {
				// A recursive copy reads everything below the source
				// (hidden entries too) into a place that can be read later.
				// It copies a link below the source as a link unless -L
				// (taken to follow even when a later -P or -a undoes it).
				st.tree(o, Tree{Hidden: true, SkipsLinks: !st.has('f')})
			}
			if st.has('l') {
				st.write(o)
			}
		}
		st.intoWrites(ops, dest, st.has('n'))
		// -s makes symbolic links, -l hard links; -r, -R, -a, -d and -P
		// copy symbolic links as links (GNU cp, also for operands). -L and
		// -H follow them, but a later -P wins: kept as a copy of links.
		kind, linked := LinkSame, st.has('l') || st.has('k') || st.has('r')
		if st.has('s') {
			kind, linked = LinkSymbolicCwd, true
		}
		if linked && dest != "" {
			st.links(kind, ops, dest, into, st.has('n'))
		}
	},
}

// ln makes links. The link name (the last operand, the directory of -t or
// of several targets, or the target's base name in the working directory)
// is written. A symbolic link's target is not written; a hard link's target
// is, since writing through the new name changes it.
var lnSpec = &spec{
	allow: `-b --backup? -d -F --directory -f --force -i --interactive -L --logical -n --no-dereference
		-P --physical -r@r --relative@r -s@s --symbolic@s -S= --suffix= -t=w@t --target-directory=w@t
		-T@n --no-target-directory@n -v --verbose -h -w`,
	never: "ln creates links",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		ops := st.ops
		kind := LinkSame
		if st.has('s') {
			// -r writes a target relative to the link, computed from one
			// given relative to the cwd.
			kind = LinkSymbolic
			if st.has('r') {
				kind = LinkSymbolicCwd
			}
		}
		var targets []string
		switch {
		case st.has('t'):
			targets = ops
			t, _ := st.val('t')
			st.intoWrites(targets, t, false)
			st.links(kind, targets, t, true, false)
		case len(ops) == 1:
			base := baseName(ops[0])
			st.write(base)
			targets = ops
			st.link(base, ops[0], kind)
		case len(ops) >= 2:
			dest := ops[len(ops)-1]
			st.write(dest)
			targets = ops[:len(ops)-1]
			st.intoWrites(targets, dest, st.has('n'))
			st.links(kind, targets, dest, len(targets) > 1, st.has('n'))
		}
		if !st.has('s') {
			// A hard link is the file under a name Read rules do not
			// guard (ln ~/.ssh/id_rsa k): its target is read too.
			for _, t := range targets {
				st.write(t)
				st.read(t)
			}
		}
	},
}

// The writers below change what they name without being read-only: their
// operands are write targets, so that dangerous-path checks and the
// working-directory test of ACCEPT_EDITS see them (a Bash(chmod:*) allow
// rule must not let "chmod 777 ~/.ssh/authorized_keys" through). An option
// the table does not know leaves the command a writer whose targets are the
// remaining words (bestEffort), never a filesystem command.

// writeOps is a check that writes every operand.
func writeOps(st *state) {
	for _, o := range st.ops {
		st.write(o)
	}
}

// writeAfterFirst writes every operand but the first (chmod's MODE,
// chown's OWNER), unless an option with mark r gave a reference file
// instead, or a mode came as an option (mark m: "chmod -x f"), or an option
// was not understood (then the first word may be a file too).
func writeAfterFirst(st *state) {
	ops := st.ops
	if !st.has('r') && !st.has('m') && !st.unknown && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range ops {
		st.write(o)
	}
}

// chmod MODE FILE... or --reference=RFILE FILE...; "-x", "-w", "-rwx" are
// modes, not options (GNU chmod reads them so).
var chmodSpec = &spec{
	allow: `-c --changes -f --silent --quiet -v --verbose --no-preserve-root --preserve-root -R --recursive
		--reference=r@r -r@m -w@m -x@m -X@m -s@m -t@m -u@m -g@m -o@m -a@m`,
	never: "chmod changes file modes",
	fs:    true,
	ops:   opsHook,
	check: writeAfterFirst,
}

// chown OWNER[:GROUP] FILE..., chgrp GROUP FILE..., or --reference=RFILE FILE....
var chownSpec = &spec{
	allow: `-c --changes -f --silent --quiet -v --verbose --dereference -h --no-dereference --from=
		--no-preserve-root --preserve-root --reference=r@r -R --recursive -H -L -P`,
	never: "changes file owners",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		writeAfterFirst(st)
		st.fail(st.argv[0] + " changes file owners or groups")
	},
}

// truncate -s SIZE FILE... changes file sizes (creating them).
var truncateSpec = &spec{
	allow: `-c --no-create -o --io-blocks -r=r --reference=r -s= --size=`,
	never: "truncate changes file sizes",
	fs:    true,
	ops:   opsHook,
	check: writeOps,
}

// mkfifo makes named pipes.
var mkfifoSpec = &spec{
	allow: `-m= --mode= -Z --context?`,
	never: "mkfifo creates named pipes",
	fs:    true,
	ops:   opsHook,
	check: writeOps,
}

// mknod NAME TYPE [MAJOR MINOR]: a device node is a way into a device, so
// it is a writer but never a filesystem command.
var mknodSpec = &spec{
	allow:  `-m= --mode= -Z --context?`,
	never:  "mknod creates device nodes",
	writer: true,
	ops:    opsHook,
	check: func(st *state) {
		if len(st.ops) > 0 {
			st.write(st.ops[0])
		}
	},
}

// shred overwrites (and with -u removes) files. --random-source reads a file.
var shredSpec = &spec{
	allow: `-f --force -n= --iterations= --random-source=r -s= --size= -u --remove? -v --verbose -x --exact
		-z --zero`,
	never: "shred destroys files",
	fs:    true,
	ops:   opsHook,
	check: writeOps,
}

// unlink FILE removes it.
var unlinkSpec = &spec{
	never: "unlink removes a file",
	fs:    true,
	ops:   opsHook,
	check: writeOps,
}

// link FILE1 FILE2 makes a hard link: FILE2 is written, and FILE1 too
// (writing through either name changes both).
var linkSpec = &spec{
	never: "link creates a hard link",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		writeOps(st)
		if len(st.ops) == 2 {
			st.read(st.ops[0]) // as ln's hard link
			st.link(st.ops[1], st.ops[0], LinkSame)
		}
	},
}

// install copies files (SOURCE DEST, SOURCE... DIR, -t DIR SOURCE...) or
// makes directories (-d DIR...). -s and --strip-program run a program, so
// they are not in the table: an install using them is no filesystem command.
var installSpec = &spec{
	allow: `-b --backup? -c -C --compare -d@d --directory@d -D -g= --group= -m= --mode= -o= --owner=
		-p --preserve-timestamps -S= --suffix= -t=w@t --target-directory=w@t -T@n --no-target-directory@n
		-v --verbose --preserve-context -Z --context? --debug`,
	never: "install copies files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		ops := st.ops
		switch {
		case st.has('d'):
			for _, o := range ops {
				st.write(o)
			}
			return
		case !st.has('t') && len(ops) > 0:
			st.write(ops[len(ops)-1])
			st.intoWrites(ops[:len(ops)-1], ops[len(ops)-1], st.has('n'))
			ops = ops[:len(ops)-1]
		default:
			t, _ := st.val('t')
			st.intoWrites(ops, t, false)
		}
		for _, o := range ops {
			st.read(o)
		}
	},
}

// split [FILE [PREFIX]] writes PREFIXaa, PREFIXab, ... (default prefix x),
// reported as the glob PREFIX* so that the path checks consider every name
// the suffixes can make ("split -a1 f .bashr" writes .bashrc). --filter runs
// a command: not in the table.
var splitSpec = &spec{
	allow: `-a= --suffix-length= --additional-suffix= -b= --bytes= -C= --line-bytes= -d --numeric-suffixes?
		-x --hex-suffixes? -e --elide-empty-files -l= --lines= -n= --number= -t= --separator= -u --unbuffered
		--verbose`,
	num:   true,
	never: "split writes files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		ops := st.ops
		if len(ops) > 0 {
			st.read(ops[0])
		}
		prefix := "x"
		if len(ops) > 1 {
			prefix = ops[1]
		}
		st.write(prefix + "*")
		if len(ops) > 2 {
			st.fail("split: extra operand " + printable(ops[2]))
		}
	},
}

// csplit FILE PATTERN... writes PREFIX00, PREFIX01, ... (default prefix xx).
var csplitSpec = &spec{
	allow: `-b= --suffix-format= -f=@f --prefix=@f -k --keep-files --suppress-matched -n= --digits= -s --quiet
		--silent -z --elide-empty-files`,
	never: "csplit writes files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		if len(st.ops) > 0 {
			st.read(st.ops[0])
		}
		prefix, ok := st.val('f')
		if !ok {
			prefix = "xx"
		}
		st.write(prefix + "*")
	},
}

// setfacl changes access control lists; chattr changes file attributes
// ("+i", "-a" are attributes, so words that look like options are taken as
// operands by bestEffort). Both change who may do what to a file: writers,
// never filesystem commands.
var setfaclSpec = &spec{
	allow: `-m= --modify= -M=r --modify-file=r -x= --remove= -X=r --remove-file=r -b --remove-all -k
		--remove-default --set= --set-file=r --mask -n --no-mask -d --default -R --recursive -L --logical
		-P --physical --test`,
	never:  "setfacl changes access control lists",
	writer: true,
	ops:    opsHook,
	check:  writeOps,
}

var chattrSpec = &spec{
	allow:  `-R -V -f -v= -p=`,
	never:  "chattr changes file attributes",
	writer: true,
	ops:    opsHook,
	check:  writeOps,
}

func init() {
	register(chmodSpec, "chmod")
	register(chownSpec, "chown", "chgrp")
	register(truncateSpec, "truncate")
	register(mkfifoSpec, "mkfifo")
	register(mknodSpec, "mknod")
	register(shredSpec, "shred")
	register(unlinkSpec, "unlink")
	register(linkSpec, "link")
	register(installSpec, "install")
	register(splitSpec, "split")
	register(csplitSpec, "csplit")
	register(setfaclSpec, "setfacl")
	register(chattrSpec, "chattr")
	register(mkdirSpec, "mkdir")
	register(touchSpec, "touch")
	register(rmSpec, "rm")
	register(rmdirSpec, "rmdir")
	register(mvSpec, "mv")
	register(cpSpec, "cp")
	register(lnSpec, "ln")
}
