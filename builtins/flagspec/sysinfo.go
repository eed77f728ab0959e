package flagspec

import (
	"strings"
)

// Programs that print facts about the machine, its processes, devices and
// binaries. Options are listed from each program's --help (util-linux,
// procps, binutils, systemd); options that change state are denied.

var lsblkSpec = &spec{
	allow: `-A --noempty -D --discard -E= --dedup= -I= --include= -J --json -M --merge -O --output-all
		-P --pairs -S --scsi -T? --tree? -a --all -b --bytes -d --nodeps -e= --exclude= -f --fs -i --ascii
		-l --list -m --perms -n --noheadings -o= --output= -p --paths -r --raw -s --inverse -t --topology
		-w= --width= -x= --sort= -y --shell -z --zoned --sysroot=r -N --nvme -v --virtio -Q= --filter=
		--highlight= --ct= --ct-filter= --list-columns -H --hyperlink?`,
	ops: opsRead,
}

var findmntSpec = &spec{
	allow: `-s --fstab -m --mtab -k --kernel -p? --poll? -w= --timeout= -A --all -a --ascii -b --bytes
		-C --nocanonicalize -c --canonicalize -D --df -d= --direction= -e --evaluate -F=r --tab-file=r
		-f --first-only -i --invert -J --json -l --list -N= --task= -n --noheadings -O= --options=
		-o= --output= --output-all -P --pairs --pseudo --shadowed -R --submounts -r --raw --real
		-S= --source= -T= --target= --tree -M= --mountpoint= -t= --types= -U --uniq -u --notruncate
		-v --nofsroot -y --shell -x --verify --verbose --vfs-all -I --dfi -H --list-columns -Q= --filter=`,
	ops: opsText,
	// LABEL=/UUID= lookups go through libblkid, which keeps a device cache.
	cache: []string{"/run/blkid", "/etc/blkid.tab"},
}

var vmstatSpec = &spec{
	allow: `-a --active -f --forks -m --slabs -n --one-header -s --stats -d --disk -D --disk-sum
		-p= --partition= -S= --unit= -w --wide -t --timestamp -y --no-first`,
	ops: opsText,
}

// sysstat: iostat and mpstat only report. (pidstat -e runs a program; sar
// -o writes a file: neither is listed.)
var iostatSpec = &spec{
	allow: `-c -d -h -k -m -N -s -t -x -y -z -p? -g= -H -j= -o= --human --pretty --compact --dec= -V`,
	ops:   opsText,
}
var mpstatSpec = &spec{allow: `-A -H -I= -N= -P= -T -u -n -o= --dec= -V`, ops: opsText}

var wSpec = &spec{
	allow: `-h --no-header -u --no-current -s --short -f --from -o --old-style -i --ip-addr -p --pids`,
	ops:   opsText,
}

// last reads the login records (-f another file).
var lastSpec = &spec{
	allow: `-h -a --hostlast -d --dns -f=r --file=r -F --fulltimes -i --ip -n= --limit= -R --nohostname
		-s= --since= -t= --until= -p= --present= -w --fullnames -x --system --time-format=`,
	num: true,
	ops: opsText,
}
var lastlogSpec = &spec{allow: `-b= --before= -t= --time= -u= --user= -C --clear -S --set`, deny: []denial{{`-C --clear -S --set`, "changes the login records"}}, ops: opsNone}

var lsmodSpec = &spec{ops: opsNone}
var modinfoSpec = &spec{allow: `-a --author -d --description -l --license -p --parameters -n --filename -0 --null -F= --field= -k= -b=r --basedir=r`, ops: opsText}
var lspciSpec = &spec{
	allow: `-m -mm -t -v -vv -vvv -k -x -xxx -xxxx -b -D -P -PP -n -nn -q -qq -Q -s= -d= -i=r -p=r -A= -O= -H= -F=r -G -M -j`,
	ops:   opsNone,
}
var lsusbSpec = &spec{allow: `-v --verbose -s= -d= -D=r -t --tree -V -h --help`, ops: opsNone}

// dmesg prints the kernel ring buffer. -C/-c clear it, -D/-E/-n change the
// console; -H pages through the user's pager when stdout is a terminal.
var dmesgSpec = &spec{
	allow: `-F=r --file=r -f= --facility= -H --human -J --json -k --kernel -L? --color? -l= --level=
		-P@m --nopager@m -p --force-prefix -r --raw --noescape -S --syslog -s= --buffer-size= -u --userspace
		-w --follow -W --follow-new -x --decode -d --show-delta -e --reltime -T --ctime -t --notime
		--time-format= --since= --until=`,
	deny:     []denial{{`-C --clear -c --read-clear -D --console-off -E --console-on -n= --console-level=`, "changes the kernel log or console"}},
	ops:      opsNone,
	terminal: terminalPages, // -H (--human) pages
}

// top: batch or interactive display (interactive commands are the user's).
var topSpec = &spec{
	allow: `-b@m --batch-mode@m -c --cmdline-toggle -d= --delay= -E= --scale-summary-mem= -e= --scale-task-mem=
		-H --threads-show -i --idle-toggle -n= --iterations= -O --list-fields -o= --sort-override=
		-p= --pid= -S --accum-time-toggle -s --secure-mode -U= --filter-any-user= -u= --filter-only-euser=
		-w? --width? -1 --single-cpu-toggle -h -v -V`,
	ops:   opsNone,
	noStd: true,
	// top creates its configuration directory at start.
	cache: []string{"~/.config/procps"},
	// Batch mode (-b, @m) reads no keys.
	terminal: "reads keys on a terminal that are commands (k sends a signal, r renices, W writes its configuration)",
}

// pgrep and pidof find processes; they signal nothing.
var pgrepSpec = &spec{
	allow: `-d= --delimiter= -l --list-name -a --list-full -v --inverse -w --lightweight -c --count
		-f --full -g= --pgroup= -G= --group= -i --ignore-case -n --newest -o --oldest -O= --older=
		-P= --parent= -s= --session= -t= --terminal= -u= --euid= -U= --uid= -x --exact -F=r --pidfile=r
		-L --logpidfile -r= --runstates= -A --ignore-ancestors --cgroup= --ns= --nslist= --env=`,
	ops: opsText,
}
var pidofSpec = &spec{allow: `-s -c -n -q -w -x -t -S= -o= -d=`, ops: opsText}
var pstreeSpec = &spec{
	allow: `-a --arguments -A --ascii -c --compact-not -C= --color= -g --show-pgids -G --vt100
		-h --highlight-all -H= --highlight-pid= -l --long -n --numeric-sort -N= --ns-sort= -p --show-pids
		-s --show-parents -S --ns-changes -t --thread-names -T --hide-threads -u --uid-changes
		-U --unicode -Z --security-context`,
	ops: opsText,
}

// kill and killall: only listing signal names (kill -l, -L) and kill -0
// (does the process exist) send nothing.
var killSpec = &spec{anyArgs: true, check: func(st *state) {
	args := st.argv[1:]
	if len(args) == 0 {
		st.fail("kill: signals processes")
		return
	}
	switch args[0] {
	case "-l", "-L", "--list", "--table":
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") || strings.Contains(a, Dynamic) {
				st.fail("kill: " + printable(a) + " after " + args[0] + " is not modelled")
			}
		}
		return
	case "-0":
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") && a != "--" {
				st.fail("kill: " + printable(a) + " is not modelled")
			}
		}
		return
	}
	st.fail("kill: signals processes")
}}
var killallSpec = &spec{anyArgs: true, check: func(st *state) {
	if len(st.argv) == 2 && (st.argv[1] == "-l" || st.argv[1] == "--list" || st.argv[1] == "-V" || st.argv[1] == "--version") {
		return
	}
	st.fail("killall: signals processes")
}}

// sysctl reads kernel parameters; NAME=VALUE, -w, -p/-f and --system write them.
var sysctlSpec = &spec{
	allow: `-a --all -A -X --deprecated -b --binary -e --ignore -N --names -n --values -r= --pattern= -q --quiet -o -x -d`,
	deny:  []denial{{`-w --write -p? --load? -f? --system`, "sets kernel parameters"}},
	ops:   opsHook,
	check: func(st *state) {
		for _, o := range st.ops {
			if strings.Contains(o, "=") {
				st.fail("sysctl: " + printable(o) + " sets a kernel parameter")
			}
		}
	},
}

var getconfSpec = &spec{allow: `-a -v=`, ops: opsText}

// blkid keeps a cache of devices (/run/blkid/blkid.tab) that it updates;
// -c names another cache file (only /dev/null is not written), -g
// garbage-collects it.
var blkidSpec = &spec{
	allow: `-c=@c --cache-file=@c -d --no-encoding -o=@o --output=@o -k --list-filesystems -s= --match-tag=
		-t= --match-token= -l --list-one -L= --label= -U= --uuid= -p --probe -i --info -H= --hint=
		-S= --size= -O= --offset= -u= --usages= -n= --match-types= -D --no-part-details -w=`,
	deny:  []denial{{`-g --garbage-collect`, "rewrites the device cache"}},
	ops:   opsRead,
	cache: []string{"/run/blkid", "/etc/blkid.tab"},
	check: func(st *state) {
		if v, ok := st.val('c'); ok && v != "/dev/null" {
			st.write(v)
			st.codeWord(len(st.argv) - 1) // an allow rule spells the file out
			st.fail("blkid: -c writes the cache file " + printable(v))
		}
		if v, _ := st.val('o'); v == "list" {
			// The list format tests mount points by creating a file in each.
			st.fail("blkid: -o list creates a test file in each mount point")
		}
	},
}

// lsattr -R and getfacl -R list the names below their operands (the
// working directory for lsattr without one): lsattr's hidden entries only
// with -a, getfacl's always; lsattr follows no link below, getfacl only
// with -L (the last of -L/-P; observed with acl 2.3 and e2fsprogs 1.47:
// getfacl -R ~ listed ~/.ssh while read-only, ls ~/.ssh asks).
var lsattrSpec = &spec{allow: `-R@r -V -a@a -d -l -p -v`, ops: opsRead, noStd: true, check: func(st *state) {
	if st.has('r') {
		treesOf(st, st.ops, Tree{NamesOnly: true, Hidden: st.has('a'), SkipsLinks: true})
	}
}}
var getfaclSpec = &spec{
	allow: `-a --access -d --default -c --omit-header -e --all-effective -E --no-effective -s --skip-base
		-R@r --recursive@r -L@f --logical@f -P@p --physical@p -t --tabular -n --numeric -p --absolute-names
		--one-file-system -v`,
	ops: opsRead,
	check: func(st *state) {
		if st.has('r') {
			for _, o := range st.ops {
				st.tree(o, Tree{NamesOnly: true, Hidden: true, SkipsLinks: !followsLast(st, 'f', 'p')})
			}
		}
	},
}

var lsmemSpec = &spec{
	allow: `-J --json -P --pairs -a --all -b --bytes -n --noheadings -o= --output= --output-all -r --raw
		-S= --split= -s=r --sysroot=r --summary? -H --list-columns`,
	ops: opsNone,
}
var lsipcSpec = &spec{
	allow: `-m --shmems -q --queues -s --semaphores -g --global -i= --id= --noheadings --notruncate
		--time-format= -b --bytes -c --creator -e --export -J --json -n --newline -l --list -o= --output=
		-P --numeric-perms -r --raw -t --time -y --shell -H --list-columns -M --posix-mqueues -Q --posix-shmems -S --posix-semaphores --name=`,
	ops: opsNone,
}
var lslocksSpec = &spec{
	allow: `-b --bytes -J --json -i --noinaccessible -n --noheadings -o= --output= --output-all -p= --pid=
		-r --raw -u --notruncate -H --list-columns`,
	ops: opsNone,
}
var lsnsSpec = &spec{
	allow: `-J --json -l --list -n --noheadings -o= --output= --output-all -p= --task= -r --raw
		-u --notruncate -W --nowrap -t= --type= -T? --tree? -P --persistent -Q= --filter= -H --list-columns`,
	ops: opsText,
}
var ipcsSpec = &spec{
	allow: `-i= --id= -m --shmems -q --queues -s --semaphores -a --all -t --time -p --pid -c --creator
		-l --limits -u --summary --human -b --bytes`,
	ops: opsNone,
}
var nameiSpec = &spec{allow: `-x --mountpoints -m --modes -o --owners -l --long -n --nosymlinks -v --vertical -Z --context`, ops: opsRead}
var mountpointSpec = &spec{allow: `-q --quiet --nofollow -d --fs-devno -x --devno`, ops: opsRead}

// lsb_release, uuidgen, hostid, arch: facts.
var lsbReleaseSpec = &spec{allow: `-v --version -i --id -d --description -r --release -c --codename -a --all -s --short`, ops: opsNone}
var uuidgenSpec = &spec{allow: `-r --random -t --time -m --md5 -s --sha1 -n= --namespace= -N= --name= -x --hex -C= --count= -6 --time-v6 -7 --time-v7`, ops: opsNone}

// whereis, whatis and apropos look names up in man-db's indexes.
// (No whereis option reads a file, writes or runs anything: its spec is
// complete.)
// whereis -B, -M and -S take the directories it lists, up to -f: every
// operand is then a read (the names after -f too, as relative paths).
var whereisSpec = &spec{complete: true, allow: `-b -m -s -u -l -g -f -B@d -M@d -S@d`, ops: opsHook,
	check: func(st *state) {
		if st.has('d') {
			for _, o := range st.ops {
				st.read(o)
			}
		}
	}}
var whatisSpec = &spec{
	allow: `-d --debug -v --verbose -r --regex -w --wildcard -l --long -C=r --config-file=r -L= --locale=
		-m= --systems= -M= --manpath= -s= --sections= --section= -e --exact -a --and --usage -?`,
	ops: opsText,
}

// mount with no operand (or only -l / -t TYPE) lists the mounts; anything
// else mounts.
var mountSpec = &spec{
	allow: `-l --show-labels -t= --types= -v --verbose`,
	ops:   opsNone,
}

// Binary inspectors (binutils): they only read. --plugin loads a shared
// object; an @FILE operand reads more options from a file (which could
// name a plugin); -WK/-wK follow debug links through debuginfod servers.
func binutils(allow string) *spec {
	return &spec{
		allow: allow,
		deny:  []denial{{`--plugin=`, "loads a plugin"}},
		ops:   opsHook,
		check: func(st *state) {
			for _, a := range st.argv[1:] {
				// -wK, -WK, --debug-dump=follow-links: follow debug links,
				// through debuginfod servers when configured.
				if (strings.HasPrefix(a, "-w") || strings.HasPrefix(a, "-W") || strings.HasPrefix(a, "--d")) &&
					(strings.Contains(a, "K") || strings.Contains(a, "follow-links")) {
					st.fail(st.spec.name + ": " + printable(a) + " follows debug links (debuginfod)")
				}
			}
			for _, o := range st.ops {
				if strings.HasPrefix(o, "@") {
					st.fail(st.spec.name + ": " + printable(o) + " reads more options from a file")
					continue
				}
				st.read(o)
			}
		},
	}
}

var nmSpec = binutils(`-a --debug-syms -A --print-file-name -B -C --demangle? --no-demangle --recurse-limit
	--no-recurse-limit -D --dynamic -e -f= --format= -g --extern-only --ifunc-chars= -j --just-symbols
	-l --line-numbers -n --numeric-sort -v -o -p --no-sort -P --portability -r --reverse-sort -S --print-size
	-s --print-armap --quiet --size-sort --special-syms --synthetic -t= --radix= --target= -u --undefined-only
	-U --defined-only --unicode= -W --no-weak --with-symbol-versions --without-symbol-versions -X= -V -h`)
var objdumpSpec = binutils(`-a --archive-headers -f --file-headers -p --private-headers -P= --private=
	-h --section-headers --headers -x --all-headers -d --disassemble? -D --disassemble-all -S --source
	--source-comment? -s --full-contents -g --debugging -e --debugging-tags -G --stabs -W? --dwarf? -L
	--process-links --ctf? --sframe? -t --syms -T --dynamic-syms -r --reloc -R --dynamic-reloc -v -i --info
	-H -b= --target= -m= --architecture= -j= --section= -M= --disassembler-options= -EB -EL --endian=
	--file-start-context -I=r --include=r -l --line-numbers -F --file-offsets -C --demangle? --recurse-limit
	--no-recurse-limit -w --wide -U= --unicode= -z --disassemble-zeroes --start-address= --stop-address=
	--no-addresses --prefix-addresses --show-raw-insn --no-show-raw-insn --insn-width= --adjust-vma=
	--show-all-symbols --special-syms --inlines --prefix= --prefix-strip= --dwarf-depth= --dwarf-start=
	--dwarf-check --ctf-parent= --visualize-jumps? --disassembler-color= -V`)
var readelfSpec = binutils(`-a --all -h --file-header -l --program-headers --segments -S --section-headers
	--sections -g --section-groups -t --section-details -e --headers -s --syms --symbols --dyn-syms
	--lto-syms --sym-base= -C --demangle? --no-demangle --recurse-limit --no-recurse-limit -U= --unicode=
	-n --notes -r --relocs -u --unwind -d --dynamic -V --version-info -A --arch-specific -c --archive-index
	-D --use-dynamic -L --lint --enable-checks -x= --hex-dump= -p= --string-dump= -R= --relocated-dump=
	-z --decompress -w? --debug-dump? --dwarf-depth= --dwarf-start= --ctf= --ctf-parent= --ctf-symbols=
	--ctf-strings= --sframe? -I --histogram -W --wide -T --silent-truncation -H -v -P --process-links
	-X --extra-sym-info --no-extra-sym-info`)
var sizeSpec = binutils(`-A -B -G --format= -o -d -x --radix= --common -t --totals --target= -h -v -V`)

// dpkg: its query actions only (-l, -L, -s, -S, -p, -V, -C,
// --get-selections, --print-architecture, -c a .deb's contents ...).
// Installing, removing, unpacking, selections and architectures change the
// system; --pre-invoke/--post-invoke run commands; --root/--instdir act on
// another tree.
var dpkgSpec = &spec{
	allow: `-l@a --list@a -L@a --listfiles@a -s@a --status@a -S@a --search@a -p@a --print-avail@a -V@a
		--verify@a -C@a --audit@a --get-selections@a --print-architecture@a --print-foreign-architectures@a
		--compare-versions@a --yet-to-unpack@a --predep-package@a -c@a --contents@a --assert-help@a --force-help@a
		--admindir=r --no-pager@m --verify-format= --debug= -D= -?`,
	deny: []denial{
		{`-i --install --unpack -A --record-avail --configure --triggers-only -r --remove -P --purge
			--set-selections --clear-selections --update-avail --merge-avail --clear-avail --forget-old-unavail
			--add-architecture= --remove-architecture= -x --extract -X --vextract -b --build -e --control
			-R --recursive`, "changes installed packages or writes files"},
		{`--pre-invoke= --post-invoke= --status-logger= --root= --instdir= --log=`, "runs commands, writes a log or acts on another tree"},
	},
	ops:      opsText,
	terminal: terminalPages, // dpkg -l, through dpkg-query
	check: func(st *state) {
		if !st.has('a') && !st.help {
			st.fail("dpkg: no query action")
		}
	},
}

// dpkg-deb --contents lists a package's files (dpkg -c runs it); --show
// prints its fields. Both unpack the control part into a scratch
// directory in TMPDIR, removed at once (seen by the vocabulary fuzzer):
// named as its own scratch space, as tac's.
var dpkgDebSpec = &spec{
	allow: `-c@a --contents@a -W@a --show@a --showformat= -v --verbose`,
	ops:   opsRead,
	cache: []string{"/tmp"},
	check: func(st *state) {
		if !st.has('a') && !st.help {
			st.fail("dpkg-deb: only --contents and --show are read-only")
		}
	},
}

// getopt (util-linux) parses arguments for a shell script and prints them.
var getoptSpec = &spec{anyArgs: true}

// ldd may run the program it inspects (and its ELF interpreter).
func init() {
	register(dpkgSpec, "dpkg")
	register(dpkgDebSpec, "dpkg-deb")
	register(getoptSpec, "getopt")
	register(lsblkSpec, "lsblk")
	register(findmntSpec, "findmnt")
	register(vmstatSpec, "vmstat")
	register(iostatSpec, "iostat")
	register(mpstatSpec, "mpstat")
	register(wSpec, "w")
	register(lastSpec, "last", "lastb")
	register(lastlogSpec, "lastlog")
	register(lsmodSpec, "lsmod")
	register(modinfoSpec, "modinfo")
	register(lspciSpec, "lspci")
	register(lsusbSpec, "lsusb")
	register(dmesgSpec, "dmesg")
	register(topSpec, "top")
	register(pgrepSpec, "pgrep")
	register(pidofSpec, "pidof")
	register(pstreeSpec, "pstree")
	register(killSpec, "kill")
	register(killallSpec, "killall")
	register(sysctlSpec, "sysctl")
	register(getconfSpec, "getconf")
	register(blkidSpec, "blkid")
	register(lsattrSpec, "lsattr")
	register(getfaclSpec, "getfacl")
	register(lsmemSpec, "lsmem")
	register(lsipcSpec, "lsipc")
	register(lslocksSpec, "lslocks")
	register(lsnsSpec, "lsns")
	register(ipcsSpec, "ipcs")
	register(nameiSpec, "namei")
	register(mountpointSpec, "mountpoint")
	register(lsbReleaseSpec, "lsb_release")
	register(uuidgenSpec, "uuidgen")
	register(noArgSpec, "hostid")
	register(whereisSpec, "whereis")
	register(whatisSpec, "whatis", "apropos")
	register(mountSpec, "mount")
	register(nmSpec, "nm")
	// objdump --info tries each target format on a scratch file in
	// TMPDIR, removed at once (seen by the vocabulary fuzzer).
	objdumpSpec.cache = []string{"/tmp"}
	register(objdumpSpec, "objdump")
	register(readelfSpec, "readelf")
	register(sizeSpec, "size")
	knownWriters["ldd"] = "may run the program it inspects"
	knownWriters["umount"] = "unmounts file systems"
}
