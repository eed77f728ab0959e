package flagspec

import "strings"

// Filesystem commands (contract §2): never read-only, but when every option
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
		--strip-trailing-slashes -S= --suffix= -t=w@t --target-directory=w@t -T --no-target-directory
		-u --update? -v --verbose -Z --context --debug -h`,
	never: "mv moves files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			st.write(o)
		}
	},
}

// cp copies files: the sources are read, the destination (the last operand,
// or -t's directory) is written. Hard links (-l, --link) share the source's
// data, so with them the sources count as written too.
var cpSpec = &spec{
	allow: `-a@r --archive@r --attributes-only -b --backup? --copy-contents -d -f --force -i --interactive
		-H -l@l --link@l -L --dereference -n --no-clobber -P --no-dereference -p --preserve?
		--no-preserve= --parents -R@r -r@r --recursive@r --reflink? --remove-destination --sparse=
		--strip-trailing-slashes -s --symbolic-link -S= --suffix= -t=w@t --target-directory=w@t
		-T --no-target-directory -u --update? -v --verbose --keep-directory-symlink -x
		--one-file-system -Z --context? --debug -c -X`,
	never: "cp copies files",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		ops := st.ops
		if !st.has('t') && len(ops) > 0 {
			st.write(ops[len(ops)-1])
			ops = ops[:len(ops)-1]
		}
		for _, o := range ops {
			st.read(o)
			if st.has('r') {
				// A recursive copy reads everything below the source
				// (hidden entries too) into a place that can be read later.
				st.tree(o, Tree{Hidden: true})
			}
			if st.has('l') {
				st.write(o)
			}
		}
	},
}

// ln makes links. The link name (the last operand, the directory of -t or
// of several targets, or the target's base name in the working directory)
// is written. A symbolic link's target is not written; a hard link's target
// is, since writing through the new name changes it.
var lnSpec = &spec{
	allow: `-b --backup? -d -F --directory -f --force -i --interactive -L --logical -n --no-dereference
		-P --physical -r --relative -s@s --symbolic@s -S= --suffix= -t=w@t --target-directory=w@t
		-T --no-target-directory -v --verbose -h -w`,
	never: "ln creates links",
	fs:    true,
	ops:   opsHook,
	check: func(st *state) {
		ops := st.ops
		var targets []string
		switch {
		case st.has('t'):
			targets = ops
		case len(ops) == 1:
			base := strings.TrimRight(ops[0], "/")
			if k := strings.LastIndexByte(base, '/'); k >= 0 {
				base = base[k+1:]
			}
			st.write(base)
			targets = ops
		case len(ops) >= 2:
			st.write(ops[len(ops)-1])
			targets = ops[:len(ops)-1]
		}
		if !st.has('s') {
			for _, t := range targets {
				st.write(t)
			}
		}
	},
}

func init() {
	register(mkdirSpec, "mkdir")
	register(touchSpec, "touch")
	register(rmSpec, "rm")
	register(rmdirSpec, "rmdir")
	register(mvSpec, "mv")
	register(cpSpec, "cp")
	register(lnSpec, "ln")
}
