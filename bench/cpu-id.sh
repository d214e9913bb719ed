#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/cpu-id.sh: one line naming this machine's processor for the bench
# results (issue 32): the model name, which a hypervisor may shorten to
# "AMD EPYC" or "Intel Xeon Processor", then the family, model and
# stepping that tell one generation from another, and the generation's
# name where the pair is one we know. e.g.
#   AMD EPYC (family 26, model 2, stepping 1: Zen 5)
set -eu
f=/proc/cpuinfo
field() { sed -n "s/^$1[[:space:]]*: *//p" "$f" | head -n 1; }
name=$(field 'model name')
vendor=$(field vendor_id)
fam=$(field 'cpu family')
mod=$(field model)
step=$(field stepping)
gen=
case $vendor:$fam in
AuthenticAMD:23)
	if [ "$mod" -ge 48 ]; then gen='Zen 2'; elif [ "$mod" -ge 8 ]; then gen='Zen+'; else gen='Zen'; fi ;;
AuthenticAMD:25)
	if [ "$mod" -ge 160 ] && [ "$mod" -le 175 ]; then gen='Zen 4c'
	elif [ "$mod" -ge 16 ]; then gen='Zen 4'; else gen='Zen 3'; fi ;;
AuthenticAMD:26) gen='Zen 5' ;;
GenuineIntel:6)
	case $mod in
	85) gen='Skylake-SP/Cascade Lake' ;;
	106|108) gen='Ice Lake-SP' ;;
	143) gen='Sapphire Rapids' ;;
	207) gen='Emerald Rapids' ;;
	173|174) gen='Granite Rapids' ;;
	175) gen='Sierra Forest' ;;
	esac ;;
esac
printf '%s (family %s, model %s, stepping %s%s)\n' "${name:-unknown}" "${fam:-?}" "${mod:-?}" \
	"${step:-?}" "${gen:+: $gen}"
