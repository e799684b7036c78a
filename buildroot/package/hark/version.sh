#!/bin/sh
# version.sh REPOSITORY: the version Hark is built as, in the form the
# update agent compares (device/update.ParseVersion), so that every build
# of a later commit is newer than the one before it:
#
#   tag v1.2.3, HEAD on it         1.2.3
#   5 commits after v1.2 (1.2.0)   1.2.0.5
#   5 commits after v1.3.0-rc1     1.3.0-rc1.5
#   no v* tag, 42 commits          0.0.0.42
#   uncommitted changes            ...-dirty (sorts before the clean build)
#   not a git checkout             0.0.0-dev
set -eu

repo=${1:?usage: version.sh REPOSITORY}
git_() {
	git -C "$repo" "$@"
}

if ! git_ rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo 0.0.0-dev
	exit 0
fi

if tag=$(git_ describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null); then
	n=$(git_ rev-list --count "$tag..HEAD")
	v=${tag#v}
	case "$v" in
	*-* | *+*) ;;
	*)
		# Three numbers, so 1.2 plus commits cannot read as 1.2.<n>.
		while [ "$(printf '%s' "$v" | tr -cd . | wc -c)" -lt 2 ]; do
			v=$v.0
		done
		;;
	esac
else
	n=$(git_ rev-list --count HEAD)
	v=0.0.0
fi
if [ "$n" -gt 0 ]; then
	v=$v.$n
fi
if [ -n "$(git_ status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	v=$v-dirty
fi
echo "$v"
