package flagspec

// Shell builtins that print state when given no operand and change it when
// given one: ulimit, umask, export, alias. Their print forms are read-only.

// ulimit prints limits; an operand sets one.
var ulimitSpec = &spec{
	allow: `-a -b -c -d -e -f -i -k -l -m -n -p -q -r -s -t -u -v -x -H -S -P -T -R`,
	noStd: true,
	ops:   opsNone,
}

// umask prints the mask (-S symbolically, -p reusable); an operand sets it.
var umaskSpec = &spec{allow: `-S -p`, noStd: true, ops: opsNone}

// export and alias print with no operand (export -p); any operand defines
// or changes something for later commands.
var exportSpec = &spec{allow: `-p`, noStd: true, ops: opsNone}
var aliasSpec = &spec{allow: `-p`, noStd: true, ops: opsNone}

// jobs lists the shell's jobs.
var jobsSpec = &spec{allow: `-l -n -p -r -s`, noStd: true, ops: opsText}

// ss and netstat list sockets. ss -K/--kill closes sockets; ss -D/--diag
// writes raw information to a file; -F/--filter reads a filter file.
var ssSpec = &spec{
	allow: `-h --help -V --version -H --no-header -O --oneline -n --numeric -r@r --resolve@r -a --all
		-l --listening -o --options -e --extended -m --memory -p --processes -T --threads -i --info
		--tos --cgroup --tipcinfo -s --summary -E --events -Z --context -z --contexts -N= --net=
		-b --bpf -4 --ipv4 -6 --ipv6 -0 --packet -t --tcp -M --mptcp -S --sctp -u --udp -d --dccp
		-w --raw -x --unix --tipc --vsock --xdp --inet-sockopt -f= --family= -A= --query= --socket=
		-F=r --filter=r`,
	deny: []denial{
		{`-K --kill`, "closes sockets"},
		{`-D=w --diag=w`, "writes to a file"},
	},
	ops: opsText,
}
var netstatSpec = &spec{
	allow: `-a --all -t --tcp -u --udp -w --raw -x --unix -l --listening -n@n --numeric@n -p --program
		-e --extend -o --timers -r --route -i --interfaces -s --statistics -g --groups -M --masquerade
		-c --continuous -W --wide -4 -6 -A= -f= -v --verbose -N -F -C -Z --context --numeric-hosts
		--numeric-ports --numeric-users -T --notrim -b -I= -L -m -q -R -S`,
	// -r (routes) without -n prints host names: a network read (net.go).
	ops: opsNone,
}

// lsof lists open files; none of its options write (+|-r repeats, -F
// formats). Its "+" options (+D dir, +c n, ...) are read as operands.
var lsofSpec = &spec{
	allow: `-a -b -C -h -l -n@n -N -O -P -R -t -U -v -V -X -w -K? -i? -c= -d= -D= -e= -E -F? -g? -k=r
		-L? -M -o? -p= -r? -s? -S? -T? -u= -x?`,
	ops: opsText,
}

func init() {
	register(ulimitSpec, "ulimit")
	register(umaskSpec, "umask")
	register(exportSpec, "export")
	register(aliasSpec, "alias")
	register(jobsSpec, "jobs")
	register(ssSpec, "ss")
	register(netstatSpec, "netstat")
	register(lsofSpec, "lsof")
}
