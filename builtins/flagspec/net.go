package flagspec

import (
	"net/netip"
	"strings"
)

// Network programs. A command whose network destination comes from its
// own arguments (a URL, a host, a remote, a name to look up) can carry data
// out: network egress, never read-only (curl URL, ssh host, dig NAME,
// ping HOST, git ls-remote URL). A command that only talks to a service
// configured outside the command (a cluster, a registry, a daemon, the
// resolver doing reverse lookups) is a network read: read-only unless the
// network_reads setting says ask (Verdict.Network).

// egressPrograms send to a destination named in their arguments; their
// version forms print and exit.
var egressPrograms = map[string]string{
	"curl": "URL", "wget": "URL", "ssh": "host", "scp": "host", "sftp": "host", "rsync": "host",
	"nc": "host", "ncat": "host", "netcat": "host", "socat": "address", "telnet": "host", "ftp": "host",
	"ping": "host", "ping6": "host", "traceroute": "host", "traceroute6": "host", "tracepath": "host",
	"mtr": "host", "dig": "name", "host": "name", "nslookup": "name", "whois": "name", "drill": "name",
	"http": "URL", "https": "URL", "xh": "URL", "aria2c": "URL", "lftp": "host", "arping": "host",
	"nmap": "host", "tcptraceroute": "host", "resolvectl": "name",
}

// egressVersions are the version and help forms of egress programs.
var egressVersions = map[string][]string{
	"curl": {"--version", "-V", "--help", "-h", "--manual", "-M"}, "wget": {"--version", "-V", "--help", "-h"},
	"ssh": {"-V"}, "dig": {"-v", "-h"}, "ping": {"-V"}, "nc": {"-h"}, "traceroute": {"--version", "-V", "--help"},
	"tracepath": {"-V"}, "mtr": {"--version", "-v", "--help", "-h"}, "rsync": {"--version", "-V", "--help", "-h"},
	"xh": {"--version", "-V", "--help", "-h"}, "http": {"--version", "--help"}, "nmap": {"--version", "-V", "--help", "-h"},
	"whois": {"--version", "--help"}, "host": {"-V"}, "socat": {"-V", "-h"},
}

// judgeEgress handles the egress programs that have no spec: the version
// forms are read-only, everything else is egress.
func judgeEgress(argv []string) (Verdict, bool) {
	what, ok := egressPrograms[argv[0]]
	if !ok || what == "" {
		return Verdict{}, false
	}
	if len(argv) == 2 {
		for _, f := range egressVersions[argv[0]] {
			if argv[1] == f {
				return Verdict{Known: true, ReadOnly: true}, true
			}
		}
	}
	if registry[argv[0]] != nil {
		return Verdict{}, false // its spec reads the options (Judge marks the egress)
	}
	reason := argv[0] + " sends to a " + what + " named in its arguments (network egress)"
	if why, ok := knownWriters[argv[0]]; ok {
		reason = argv[0] + " " + why + "; it sends to a " + what + " named in its arguments (network egress)"
	}
	return Verdict{Known: true, Reason: reason, Network: NetEgress}, true
}

// ip (iproute2): OBJECT [COMMAND]: show, list and get only (no command is
// show). iproute2 matches abbreviated objects and commands in a per-object
// order in which "s" is "set" for link but "show" for address, so only the
// spellings below are accepted. -b/-batch runs commands from a file; -r
// resolves addresses through the resolver (a network read); -n enters
// another network namespace (read). "ip netns exec" runs a command, "ip
// xfrm" prints IPsec keys.
var ipObjects = map[string]string{
	"a": "address", "addr": "address", "address": "address",
	"r": "route", "ro": "route", "route": "route",
	"n": "neigh", "neigh": "neigh", "neighbor": "neigh", "neighbour": "neigh",
	"l": "link", "link": "link",
	"ru": "rule", "rule": "rule",
	"m": "maddress", "maddr": "maddress", "maddress": "maddress",
	"netconf": "netconf", "ntable": "ntable", "mroute": "mroute", "tuntap": "tuntap",
	"tunnel": "tunnel", "nexthop": "nexthop", "vrf": "vrf", "stats": "stats", "netns": "netns",
	"addrlabel": "addrlabel", "token": "token", "monitor": "monitor", "tcp_metrics": "tcp_metrics",
	"tcpmetrics": "tcp_metrics", "mrule": "mrule", "sr": "sr", "mptcp": "mptcp",
}

// ipShow are the read commands accepted per object (besides none).
var ipShow = map[string]map[string]bool{
	"address": {"show": true, "list": true, "lst": true, "s": true, "sh": true, "sho": true, "l": true, "ls": true},
	"route":   {"show": true, "list": true, "lst": true, "s": true, "sh": true, "sho": true, "l": true, "ls": true, "get": true, "g": true},
	"neigh":   {"show": true, "list": true, "lst": true, "sh": true, "l": true, "ls": true, "get": true},
	"link":    {"show": true, "list": true, "lst": true, "sh": true, "l": true, "ls": true},
	"*":       {"show": true, "list": true, "lst": true, "ls": true},
	"netns":   {"list": true, "show": true, "identify": true, "list-id": true, "pids": true},
	"monitor": {"all": true, "link": true, "address": true, "route": true, "neigh": true, "rule": true, "netconf": true, "nsid": true, "label": true, "prefix": true},
}

var ipSpec = &spec{anyArgs: true, check: checkIP}

func checkIP(st *state) {
	args := st.argv[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := strings.TrimPrefix(args[0], "-")
		a = strings.TrimPrefix(a, "-")
		switch a {
		case "4", "6", "0", "M", "B", "s", "stats", "statistics", "d", "details", "h", "human", "human-readable",
			"iec", "br", "brief", "j", "json", "p", "pretty", "o", "oneline", "t", "timestamp", "ts", "tshort",
			"N", "Numeric", "a", "all", "c", "color", "color=always", "color=auto", "color=never", "V", "Version", "help":
			args = args[1:]
		case "r", "resolve":
			st.v.Network = NetRead
			args = args[1:]
		case "f", "family", "l", "loops", "rc", "rcvbuf", "n", "netns":
			if len(args) < 2 {
				st.fail("ip: -" + a + " needs a value")
				return
			}
			args = args[2:]
		case "b", "batch", "force":
			st.fail("ip: -" + a + " runs commands from a file")
			return
		default:
			st.fail("ip: option " + printable(args[0]) + " is not in the read-only vocabulary")
			return
		}
	}
	if len(args) == 0 {
		if st.help || len(st.argv) > 1 && (st.argv[len(st.argv)-1] == "-V" || st.argv[len(st.argv)-1] == "-Version") {
			return
		}
		st.fail("ip: no object")
		return
	}
	obj, ok := ipObjects[args[0]]
	if !ok {
		if args[0] == "help" {
			return
		}
		st.fail("ip: object " + printable(args[0]) + " is not in the read-only vocabulary")
		return
	}
	st.v.Subcommand = obj
	if len(args) == 1 {
		return // no command: show (netns: list, monitor: all)
	}
	cmd := args[1]
	shows := ipShow[obj]
	if shows == nil {
		shows = ipShow["*"]
	}
	if cmd == "help" || shows[cmd] {
		st.v.Subcommand = obj + " " + cmd
		for _, w := range args[2:] {
			if strings.Contains(w, Dynamic) {
				st.fail("ip: the word " + printable(w) + " is only known at run time")
				return
			}
		}
		return
	}
	if obj == "monitor" || obj == "address" && cmd == "save" {
		st.fail("ip " + obj + " " + printable(cmd) + " is not modelled")
		return
	}
	st.fail("ip " + obj + " " + printable(cmd) + " changes the network configuration (only show, list and get are read-only)")
}

// ss filters: a host name after dst/src (or as a bare address) is resolved
// through the resolver with a name chosen by the command: network egress.
// -r/--resolve looks the listed peers' addresses up: a network read.
var ssKeywords = map[string]bool{
	"state": true, "exclude": true, "all": true, "connected": true, "synchronized": true, "bucket": true,
	"big": true, "established": true, "syn-sent": true, "syn-recv": true, "fin-wait-1": true, "fin-wait-2": true,
	"time-wait": true, "closed": true, "close-wait": true, "last-ack": true, "listening": true, "listen": true,
	"closing": true, "and": true, "or": true, "not": true, "!": true, "(": true, ")": true, "eq": true,
	"ne": true, "neq": true, "gt": true, "lt": true, "ge": true, "le": true, "=": true, "==": true, "!=": true,
	">": true, "<": true, ">=": true, "<=": true, "&": true, "&&": true, "|": true, "||": true,
	"autobound": true, "dport": true, "sport": true, "dst": true, "src": true, "dev": true, "fwmark": true,
	"cgroup": true, "inode": true, "sk": true,
}

func checkSS(st *state) {
	if st.has('r') {
		st.v.Network = NetRead
	}
	afterDev := false
	for _, o := range st.ops {
		if strings.Contains(o, Dynamic) {
			st.fail("ss: the filter word " + printable(o) + " is only known at run time")
			return
		}
		if afterDev {
			afterDev = false
			continue
		}
		for _, w := range strings.Fields(o) {
			if ssKeywords[w] {
				afterDev = w == "dev" || w == "fwmark" || w == "cgroup" || w == "inode"
				continue
			}
			if !ssAddress(w) {
				st.egress(w)
				return
			}
		}
	}
}

// ssAddress reports whether w is an address ss does not look up: an IP
// address or prefix, "*", or ":PORT" (a port or service name, looked up in
// /etc/services), optionally joined with ":" or brackets.
func ssAddress(w string) bool {
	if w == "*" || strings.HasPrefix(w, ":") {
		return true
	}
	host := w
	if strings.HasPrefix(host, "[") {
		if j := strings.Index(host, "]"); j > 0 {
			host = host[1:j]
		}
	} else if j := strings.LastIndexByte(host, ':'); j > 0 && strings.Count(host, ":") == 1 {
		host = host[:j]
	}
	if host == "*" {
		return true
	}
	if k := strings.IndexByte(host, '/'); k > 0 {
		host = host[:k]
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	// ss also reads a bare number as a port or an address.
	return strings.Trim(host, "0123456789.") == ""
}

// netstat, arp and route print host names, looked up through the resolver,
// unless -n: a network read.
func reverseLookups(st *state) {
	if !st.has('n') {
		st.v.Network = NetRead
	}
}

var arpSpec = &spec{
	allow: `-a --all -e -n@n --numeric -v --verbose -i= --device= -H= --hw-type= -t=`,
	deny:  []denial{{`-d --delete -s --set -f --file?`, "changes the ARP table"}},
	ops:   opsText, check: reverseLookups,
}
var routeSpec = &spec{
	allow: `-n@n --numeric -e --extend -v --verbose -A= -F -C --cache -4 -6 --inet --inet6 -ee`,
	ops:   opsNone, check: reverseLookups,
}

// ifconfig with no operand or one interface prints; more operands configure it.
var ifconfigSpec = &spec{allow: `-a -s -v -l -L -u -d -m`, ops: opsHook, noStd: true, check: func(st *state) {
	if len(st.ops) > 1 {
		st.fail("ifconfig: " + printable(st.ops[1]) + " changes the interface")
	}
}}

func init() {
	register(ipSpec, "ip")
	register(arpSpec, "arp")
	register(routeSpec, "route")
	register(ifconfigSpec, "ifconfig")
	ssSpec.ops = opsHook
	ssSpec.check = checkSS
	netstatSpec.check = reverseLookups
	lsofSpec.check = reverseLookups
}

// curl is network egress, never read-only; its spec is for deny and ask
// rules and for the paths its options write and read (-o, -T, -K, ...).
// curl takes any unambiguous prefix of a long option (checked with curl
// 7.88.1: --upload-fi is --upload-file, --outp is ambiguous between
// --output and --output-dir), and --no-X turns a boolean X off. The
// options are those of `curl --help all`.
var curlSpec = &spec{
	noStd: true,
	never: "curl transfers data to and from URLs",
	allow: `--abstract-unix-socket= --alt-svc=w --anyauth --no-anyauth -a|--append --no-append --aws-sigv4=
		--basic --no-basic --cacert=r --capath=r -E|--cert=r --cert-status --no-cert-status --cert-type=
		--ciphers= --compressed --no-compressed --compressed-ssh --no-compressed-ssh -K|--config=r
		--connect-timeout= --connect-to= -C|--continue-at= -b|--cookie=r -c|--cookie-jar=w --create-dirs
		--no-create-dirs --create-file-mode= --crlf --no-crlf --crlfile=r --curves= -d|--data= --data-ascii=
		--data-binary= --data-raw= --data-urlencode= --delegation= --digest --no-digest -q|--disable
		--no-disable --disable-eprt --no-disable-eprt --disable-epsv --no-disable-epsv
		--disallow-username-in-url --no-disallow-username-in-url --dns-interface= --dns-ipv4-addr=
		--dns-ipv6-addr= --dns-servers= --doh-cert-status --no-doh-cert-status --doh-insecure
		--no-doh-insecure --doh-url= -D|--dump-header=w --egd-file= --engine= --etag-compare=r --etag-save=w
		--expect100-timeout= -f|--fail --no-fail --fail-early --no-fail-early --fail-with-body
		--no-fail-with-body --false-start --no-false-start -F|--form= --form-escape --no-form-escape
		--form-string= --ftp-account= --ftp-alternative-to-user= --ftp-create-dirs --no-ftp-create-dirs
		--ftp-method= --ftp-pasv --no-ftp-pasv -P|--ftp-port= --ftp-pret --no-ftp-pret --ftp-skip-pasv-ip
		--no-ftp-skip-pasv-ip --ftp-ssl-ccc --no-ftp-ssl-ccc --ftp-ssl-ccc-mode= --ftp-ssl-control
		--no-ftp-ssl-control -G|--get --no-get -g|--globoff --no-globoff --happy-eyeballs-timeout-ms=
		--haproxy-protocol --no-haproxy-protocol -I|--head --no-head -H|--header= -h|--help+ --hostpubmd5=
		--hostpubsha256= --hsts=w --http0.9 --no-http0.9 -0|--http1.0 --no-http1.0 --http1.1 --no-http1.1
		--http2 --no-http2 --http2-prior-knowledge --no-http2-prior-knowledge --http3 --no-http3
		--http3-only --no-http3-only --ignore-content-length --no-ignore-content-length -i|--include
		--no-include -k|--insecure --no-insecure --interface= -4|--ipv4 --no-ipv4 -6|--ipv6 --no-ipv6
		--json= -j|--junk-session-cookies --no-junk-session-cookies --keepalive-time= --key=r --key-type=
		--krb= --libcurl=w --limit-rate= -l|--list-only --no-list-only --local-port= -L|--location
		--no-location --location-trusted --no-location-trusted --login-options= --mail-auth= --mail-from=
		--mail-rcpt= --mail-rcpt-allowfails --no-mail-rcpt-allowfails -M|--manual --max-filesize=
		--max-redirs= -m|--max-time= --metalink --no-metalink --negotiate --no-negotiate -n|--netrc
		--no-netrc --netrc-file=r --netrc-optional --no-netrc-optional -:|--next -N|--no-buffer --noproxy=
		--ntlm --no-ntlm --ntlm-wb --no-ntlm-wb --oauth2-bearer= -o|--output=w@o --output-dir=w@d -Z|--parallel
		--no-parallel --parallel-immediate --no-parallel-immediate --parallel-max= --pass= --path-as-is
		--no-path-as-is --pinnedpubkey= --post301 --no-post301 --post302 --no-post302 --post303 --no-post303
		--preproxy --no-preproxy -#|--progress-bar --no-progress-bar --proto= --proto-default=
		--proto-redir= -x|--proxy --no-proxy --proxy-anyauth --no-proxy-anyauth --proxy-basic
		--no-proxy-basic --proxy-cacert=r --proxy-capath=r --proxy-cert=r --proxy-cert-type=
		--proxy-ciphers= --proxy-crlfile=r --proxy-digest --no-proxy-digest --proxy-header= --proxy-insecure
		--no-proxy-insecure --proxy-key=r --proxy-key-type= --proxy-negotiate --no-proxy-negotiate
		--proxy-ntlm --no-proxy-ntlm --proxy-pass= --proxy-pinnedpubkey= --proxy-service-name=
		--proxy-ssl-allow-beast --no-proxy-ssl-allow-beast --proxy-ssl-auto-client-cert
		--no-proxy-ssl-auto-client-cert --proxy-tls13-ciphers= --proxy-tlsauthtype= --proxy-tlspassword=
		--proxy-tlsuser= --proxy-tlsv1 --no-proxy-tlsv1 -U|--proxy-user= --proxy1.0= -p|--proxytunnel
		--no-proxytunnel --pubkey=r -Q|--quote= --random-file= -r|--range= --rate= --raw --no-raw
		-e|--referer= -J|--remote-header-name --no-remote-header-name -O|--remote-name --no-remote-name
		--remote-name-all --no-remote-name-all -R|--remote-time --no-remote-time --remove-on-error
		--no-remove-on-error -X|--request= --request-target= --resolve= --retry= --retry-all-errors
		--no-retry-all-errors --retry-connrefused --no-retry-connrefused --retry-delay= --retry-max-time=
		--sasl-authzid= --sasl-ir --no-sasl-ir --service-name= -S|--show-error --no-show-error -s|--silent
		--no-silent --socks4= --socks4a= --socks5= --socks5-basic --no-socks5-basic --socks5-gssapi
		--no-socks5-gssapi --socks5-gssapi-nec --no-socks5-gssapi-nec --socks5-gssapi-service=
		--socks5-hostname= -Y|--speed-limit= -y|--speed-time= --ssl --no-ssl --ssl-allow-beast
		--no-ssl-allow-beast --ssl-auto-client-cert --no-ssl-auto-client-cert --ssl-no-revoke
		--no-ssl-no-revoke --ssl-reqd --no-ssl-reqd --ssl-revoke-best-effort --no-ssl-revoke-best-effort
		-2|--sslv2 --no-sslv2 -3|--sslv3 --no-sslv3 --stderr=w --styled-output --no-styled-output
		--suppress-connect-headers --no-suppress-connect-headers --tcp-fastopen --no-tcp-fastopen
		--tcp-nodelay --no-tcp-nodelay -t|--telnet-option= --tftp-blksize= --tftp-no-options
		--no-tftp-no-options -z|--time-cond= --tls-max= --tls13-ciphers= --tlsauthtype= --tlspassword=
		--tlsuser= -1|--tlsv1 --no-tlsv1 --tlsv1.0 --no-tlsv1.0 --tlsv1.1 --no-tlsv1.1 --tlsv1.2
		--no-tlsv1.2 --tlsv1.3 --no-tlsv1.3 --tr-encoding --no-tr-encoding --trace=w --trace-ascii=w
		--trace-time --no-trace-time --unix-socket= -T|--upload-file=r --url= --url-query= -B|--use-ascii
		--no-use-ascii -u|--user= -A|--user-agent= -v|--verbose --no-verbose -V|--version -w|--write-out=
		--xattr --no-xattr`,
	ops: opsText,
	// --output-dir D puts each relative -o file in D.
	check: func(st *state) {
		d, ok := st.val('d')
		if !ok {
			return
		}
		for _, mv := range st.vals {
			if mv.mark == 'o' && mv.val != "-" {
				st.write(joinDir(d, mv.val))
			}
		}
	},
}

func init() { register(curlSpec, "curl") }
