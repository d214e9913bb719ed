# SPDX-License-Identifier: MIT
#
# test/external/debian-source.sh: fetching a Debian source package for the
# external suites (sourced by mpich-suite/run and hpcc/run; bash).
#
# debian_source NAME PKG DIR LOG PRESENT
#   Runs `apt-get source --download-only PKG` in DIR unless the command
#   PRESENT says what is needed is already there. When the system lists no
#   deb-src entries, it tries again through a private deb-src list under
#   DIR/apt derived from the system's deb entries (one `apt-get update` of
#   that private list), so nothing under /etc/apt changes. apt-get's
#   output goes to LOG; NAME prefixes the messages. Returns 0 when PRESENT
#   holds in the end (an apt-get failure that still left what is needed,
#   say a missing .debian.tar.xz, is fine), non-zero otherwise.

# Options that point apt-get at the private list under $1.
debian_source_opts() {
	local a=$1
	apt_opts=(-o Dir::Etc::SourceList="$a/sources.list"
		-o Dir::Etc::SourceParts="$a/sources.list.d"
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache")
	# apt, as root, downloads as user _apt, who may not write here
	if [ "$(id -u)" -eq 0 ]; then
		apt_opts+=(-o APT::Sandbox::User=root)
	fi
}

# Writes the private deb-src list under $1 from the deb entries apt uses now.
debian_source_list() {
	local a=$1 SL='' SP='' f
	eval "$(apt-config shell SL Dir::Etc::sourcelist/f SP Dir::Etc::sourceparts/d)"
	mkdir -p "$a/sources.list.d" "$a/lists/partial" "$a/cache/archives/partial"
	{ [ -r "$SL" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$SL"; } >"$a/sources.list" || true
	rm -f "$a/sources.list.d/"*
	for f in "$SP"*.list "$SP"*.sources; do
		[ -r "$f" ] || continue
		case $f in
		*.list) sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" ;;
		*.sources) sed 's/^Types:.*/Types: deb-src/' "$f" ;;
		esac >"$a/sources.list.d/$(basename "$f")"
	done
}

debian_source() {
	local name=$1 pkg=$2 dir=$3 log=$4 present=$5 apt_opts=()

	$present && return 0
	command -v apt-get >/dev/null || { echo "$name: apt-get not found" >&2; return 1; }
	echo "$name: fetching Debian's $pkg source package"
	(cd "$dir" && timeout 600 apt-get -q source --download-only "$pkg") >"$log" 2>&1 || true
	$present && return 0
	echo "$name: no source list for $pkg; trying a private deb-src list"
	debian_source_list "$dir/apt"
	debian_source_opts "$dir/apt"
	(cd "$dir" && timeout 600 apt-get -q "${apt_opts[@]}" update) >>"$log" 2>&1 || true
	(cd "$dir" && timeout 600 apt-get -q "${apt_opts[@]}" source --download-only "$pkg") \
		>>"$log" 2>&1 || true
	$present && return 0
	tail -5 "$log" >&2
	return 1
}
