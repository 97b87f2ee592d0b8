#!/bin/bash
# patches/ is one series that could be mailed upstream: every patch a git am
# mbox numbered [PATCH NN/MM], applying with git am onto Debian's 6.12 rxe to
# the same tree as our build's patch -p1, checkpatch --strict clean
# (scripts/check-series.sh; its --build, every step built, is make series-check).
# Then two planted series prove the check fails, naming the patch.
source "$TOP/tests/lib/host.sh"
bash "$TOP/scripts/check-series.sh" || fail "patches/ is not a clean git am series (above)"

planted=$(mktemp -d "$TOP/build/test.XXXXXX")
trap 'rm -rf "$planted"' EXIT
p1=$(sed -n 1p "$TOP/patches/series")
p2=$(sed -n 2p "$TOP/patches/series")

# Numbered wrong: the second patch claims to be the first of three.
mkdir "$planted/num"
cp "$TOP/patches/$p1" "$TOP/patches/$p2" "$planted/num/"
printf '%s\n%s\n' "$p1" "$p2" >"$planted/num/series"
sed -i '0,/^Subject: \[PATCH [0-9]*\/[0-9]*\]/s//Subject: [PATCH 01\/03]/' "$planted/num/$p2"
if out=$(bash "$TOP/scripts/check-series.sh" --patches "$planted/num" 2>&1); then
	echo "$out"
	fail "a series numbered 01/29, 01/03 passed"
fi
echo "$out" | grep -F "$p2: subject '[PATCH 01/03]" | grep -qF "should start with '[PATCH 2/2] RDMA/rxe: '" ||
	{ echo "$out"; fail "the misnumbered subject of $p2 is not named"; }

# Does not apply: the second patch's first hunk is made to miss.
mkdir "$planted/am"
cp "$TOP/patches/$p1" "$TOP/patches/$p2" "$planted/am/"
printf '%s\n%s\n' "$p1" "$p2" >"$planted/am/series"
sed -i '1,/^Subject: /s/^Subject: \[PATCH [0-9]*\/[0-9]*\]/Subject: [PATCH 1\/2]/' "$planted/am/$p1"
# The first context or removed line of the first hunk no longer matches rxe's source.
awk '!done && /^@@ / {print; getline; sub(/^[ -]/, "&x"); done = 1} {print}' \
	"$TOP/patches/$p2" >"$planted/am/tmp" &&
	sed -i '1,/^Subject: /s/^Subject: \[PATCH [0-9]*\/[0-9]*\]/Subject: [PATCH 2\/2]/' "$planted/am/tmp" &&
	mv "$planted/am/tmp" "$planted/am/$p2"
if out=$(bash "$TOP/scripts/check-series.sh" --patches "$planted/am" 2>&1); then
	echo "$out"
	fail "a series whose second patch does not apply passed"
fi
echo "$out" | grep -qF "FAILED: git am of patch 2, $p2" ||
	{ echo "$out"; fail "the patch that does not apply is not named"; }
echo "planted series: a misnumbered subject and a patch that does not apply fail by name"
