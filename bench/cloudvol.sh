#!/usr/bin/env bash
# bench/cloudvol.sh - a throttled block volume standing in for a cloud disk:
# a sparse image on a loop device (direct I/O), a filesystem on it, and a
# cgroup capping IOPS and bytes/s on that device (cgroup v1 blkio throttle;
# cgroup v2 io.max where there is no v1 blkio hierarchy). Only I/O
# issued by processes inside the group is throttled, so the database under
# test must use O_DIRECT for its data (strata does by default).
#
#   bench/cloudvol.sh create NAME [--fs xfs|ext4] [--size 4G] [--iops 3000] [--mbps 125]
#                                 [--image PATH]
#   bench/cloudvol.sh exec NAME -- CMD ARGS...     # run CMD inside the throttle
#   bench/cloudvol.sh mnt NAME                     # print the mount point
#   bench/cloudvol.sh dev NAME                     # print the loop device (/dev/loopN)
#   bench/cloudvol.sh cgroup NAME                  # print the cgroup directory
#   bench/cloudvol.sh stat NAME                    # the cgroup's I/O on the device so far:
#                                                  # "cg_r_ios N" "cg_w_ios N" "cg_r_bytes N" "cg_w_bytes N"
#   bench/cloudvol.sh destroy NAME
#
# Volumes live under $CLOUDVOL_DIR (default /var/tmp/strata-cloudvol). With
# --image PATH the image is kept at PATH and survives destroy: create on an
# existing image with a filesystem of the requested type attaches it as it is
# (growing it to --size if it is smaller), so a volume's files (prepared data
# sets) outlive one use. Needs root, losetup, mkfs.xfs (xfsprogs) or
# mkfs.ext4, and cgroup v1 blkio mounted at /sys/fs/cgroup/blkio or a
# cgroup v2 hierarchy at /sys/fs/cgroup with the io controller (the v2 path
# is written to the kernel's interface but has not been run on this
# project's machines, which have v1 blkio).
set -euo pipefail
BASE=${CLOUDVOL_DIR:-/var/tmp/strata-cloudvol}
if [ -d /sys/fs/cgroup/blkio ]; then
	CGV=1; CG_ROOT=/sys/fs/cgroup/blkio
elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CGV=2; CG_ROOT=/sys/fs/cgroup
else
	CGV=0; CG_ROOT=/nonexistent
fi
die() { echo "cloudvol: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: $0 create|exec|mnt|dev|cgroup|stat|destroy NAME ..."
ACTION=$1; NAME=$2; shift 2
D=$BASE/$NAME
CG=$CG_ROOT/strata_$NAME
majmin() { lsblk -dno MAJ:MIN "$(cat "$D/loopdev")" | tr -d ' '; }

case "$ACTION" in
create)
	FS=xfs; SIZE=4G; IOPS=3000; MBPS=125; IMAGE=""
	while [ $# -gt 0 ]; do
		case "$1" in
		--image) IMAGE=$2; shift 2 ;;
		--fs) FS=$2; shift 2 ;;
		--size) SIZE=$2; shift 2 ;;
		--iops) IOPS=$2; shift 2 ;;
		--mbps) MBPS=$2; shift 2 ;;
		*) die "unknown option $1" ;;
		esac
	done
	[ $CGV != 0 ] || die "no cgroup v1 blkio controller at /sys/fs/cgroup/blkio and no cgroup v2 io controller"
	[ -e "$D/loopdev" ] && die "$NAME exists (destroy it first)"
	mkdir -p "$D/mnt"
	img=$D/image; fresh=1; grow=0
	if [ -n "$IMAGE" ]; then
		img=$IMAGE; mkdir -p "$(dirname "$img")"
		if [ -f "$img" ] && [ "$(blkid -p -o value -s TYPE "$img" 2>/dev/null)" = "$FS" ]; then
			fresh=0
			want=$(numfmt --from=iec "$SIZE")
			[ "$(stat -c %s "$img")" -lt "$want" ] && grow=1
		fi
		echo "$img" >"$D/external-image"
	fi
	if [ $fresh = 1 ] || [ $grow = 1 ]; then truncate -s "$SIZE" "$img"; fi
	dev=$(losetup -f --show --direct-io=on "$img")
	echo "$dev" >"$D/loopdev"
	if [ $fresh = 1 ]; then
		case "$FS" in
		xfs) mkfs.xfs -q -f -K "$dev" ;;
		ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$dev" ;;
		*) die "unknown filesystem $FS" ;;
		esac
	fi
	mount -o noatime "$dev" "$D/mnt"
	if [ $grow = 1 ]; then
		case "$FS" in xfs) xfs_growfs "$D/mnt" >/dev/null ;; ext4) resize2fs "$dev" >/dev/null 2>&1 ;; esac
	fi
	bytes=$((MBPS * 1048576))
	if [ $CGV = 1 ]; then
		mkdir -p "$CG"
		for f in read_iops_device write_iops_device; do echo "$(majmin) $IOPS" >"$CG/blkio.throttle.$f"; done
		for f in read_bps_device write_bps_device; do echo "$(majmin) $bytes" >"$CG/blkio.throttle.$f"; done
	else
		grep -qw io "$CG_ROOT/cgroup.subtree_control" || echo +io >"$CG_ROOT/cgroup.subtree_control"
		mkdir -p "$CG"
		echo "$(majmin) riops=$IOPS wiops=$IOPS rbps=$bytes wbps=$bytes" >"$CG/io.max"
	fi
	echo "cloudvol: $NAME: $FS on $dev mounted at $D/mnt, $IOPS IOPS and $MBPS MiB/s each way" >&2
	;;
exec)
	[ "${1:-}" = "--" ] && shift
	[ -d "$CG" ] || die "no volume $NAME"
	echo $$ >"$CG/cgroup.procs"
	exec "$@"
	;;
mnt)
	echo "$D/mnt"
	;;
dev)
	[ -f "$D/loopdev" ] || die "no volume $NAME"
	cat "$D/loopdev"
	;;
cgroup)
	echo "$CG"
	;;
stat)
	[ -d "$CG" ] || die "no volume $NAME"
	mm=$(majmin)
	if [ $CGV = 1 ]; then
		awk -v m="$mm" 'BEGIN{r=0; w=0} $1==m && $2=="Read"{r=$3} $1==m && $2=="Write"{w=$3} END{print "cg_r_ios", r; print "cg_w_ios", w}' "$CG/blkio.throttle.io_serviced"
		awk -v m="$mm" 'BEGIN{r=0; w=0} $1==m && $2=="Read"{r=$3} $1==m && $2=="Write"{w=$3} END{print "cg_r_bytes", r; print "cg_w_bytes", w}' "$CG/blkio.throttle.io_service_bytes"
	else
		awk -v m="$mm" 'BEGIN{v["rios"]=0; v["wios"]=0; v["rbytes"]=0; v["wbytes"]=0}
			$1==m {for (i = 2; i <= NF; i++) {split($i, kv, "="); v[kv[1]]=kv[2]}}
			END{print "cg_r_ios", v["rios"]; print "cg_w_ios", v["wios"]; print "cg_r_bytes", v["rbytes"]; print "cg_w_bytes", v["wbytes"]}' "$CG/io.stat"
	fi
	;;
destroy)
	if [ -d "$CG" ]; then
		while read -r p; do echo "$p" >"$CG_ROOT/cgroup.procs" 2>/dev/null || true; done <"$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null || true
	fi
	if mountpoint -q "$D/mnt"; then umount "$D/mnt"; fi
	[ -f "$D/loopdev" ] && losetup -d "$(cat "$D/loopdev")" 2>/dev/null || true
	rm -rf "$D" # an --image outside $D stays
	;;
*) die "unknown action $ACTION" ;;
esac
