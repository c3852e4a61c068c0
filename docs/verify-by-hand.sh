#!/usr/bin/env bash
# Checks a tunnel-archiver archive without tunnel-archiver: docs/digest-format.md (digest format 1,
# specification revision 2), with bash, jq, openssl and coreutils only. It checks every rule of the
# specification except the two of §6 that need a Parquet reader (rows = the footer's num_rows; record_id).
# Usage: verify-by-hand.sh ARCHIVE_DIR   (a local archive, or a read-only copy made with `aws s3 sync`)
# Prints one line per problem, "<object>: <what is wrong>"; exits 1 on any problem, 0 when all checks pass.
set -uo pipefail
shopt -s globstar nullglob dotglob
dir=${1:?usage: verify-by-hand.sh ARCHIVE_DIR}
cd "$dir" || exit 2
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
problems=0
bad() { echo "$1: $2"; problems=$((problems + 1)); }
sha() { sha256sum "$1" | cut -d' ' -f1; }
pem=digests/public-key.pem info=digests/public-key.json check=digests/key-check.json
# §2: exactly these members, in the digest and in each listed file (sorted, as jq's `keys` gives them).
members='["algorithm","createdAt","files","format","keyId","previous","runId","scans","seq","signature"]'
file_members='["bytes","dataset","dt","key","max","min","rows","sha256"]'
if [ ! -f "$pem" ] || ! jq -e '.algorithm and .keyId' "$info" >/dev/null 2>&1; then
  bad "$info" "the public key is missing or damaged: no signature can be checked"
fi
alg=$(jq -r .algorithm "$info" 2>/dev/null) kid=$(jq -r .keyId "$info" 2>/dev/null)
if [ "$alg" = ed25519 ] && [ "$kid" != "ed25519:$(sha "$pem" | cut -c1-32)" ]; then
  bad "$info" "keyId $kid is not the fingerprint of $pem"
fi
if [ -f "$check" ] && [ "$(jq -r .signingKeySha256 "$check")" != "$(sha "$pem")" ]; then
  bad "$pem" "is not the key the archive was written with ($check)"
fi
for key in digests/**; do # §1: nothing else lives under digests/
  [ -f "$key" ] && ! [[ $key =~ ^digests/([0-9]{10}\.json|public-key\.pem|public-key\.json|key-check\.json)$ ]] &&
    bad "$key" "unlisted: under digests/ but not a digest, the public key or the key check"
done
: >"$tmp/listed"
expect=1 prev_key="" prev_sha=""
for key in digests/[0-9]*.json; do
  [[ $key =~ ^digests/[0-9]{10}\.json$ ]] || continue
  seq=$((10#$(basename "$key" .json)))
  for ((s = expect; s < seq; s++)); do bad "$(printf 'digests/%010d.json' "$s")" "missing: the chain jumps to $key"; done
  expect=$((seq + 1)) this_sha=$(sha "$key")
  if ! jq -e --argjson m "$members" --argjson f "$file_members" 'type == "object" and .format == 1 and keys == $m
      and (.files | type) == "array" and all(.files[]; type == "object" and keys == $f)' "$key" >/dev/null 2>&1; then
    bad "$key" "not a format-1 digest (a member added, removed or misspelt)"
    prev_key=$key prev_sha=$this_sha
    continue
  fi
  [ "$(jq .seq "$key")" = "$seq" ] || bad "$key" "says it is digest $(jq .seq "$key"): renamed or copied"
  link=$(jq -r 'if .previous == null then "none" else .previous.key + " " + .previous.sha256 end' "$key")
  if [ "$seq" -eq 1 ] && [ "$link" != none ]; then bad "$key" "is the first digest but links to ${link% *}"; fi
  if [ "$seq" -gt 1 ] && [ "$link" != "$prev_key $prev_sha" ] && [ "$prev_key" = "$(printf 'digests/%010d.json' $((seq - 1)))" ]; then
    bad "$key" "does not link to $prev_key as it is now: $prev_key was changed"
  fi
  # §3, the signed bytes: jq -j (no final newline); jq escapes DEL, the spec does not.
  signed=$(jq -jcS 'del(.signature)' "$key") && printf '%s' "${signed//\\u007f/$'\x7f'}" >"$tmp/signed"
  sig=$(jq -j .signature "$key") && printf '%s' "$sig" | base64 -d >"$tmp/sig" 2>/dev/null
  if [ "$(base64 -w0 "$tmp/sig")" != "$sig" ]; then # §4: one spelling only (padded, + and /)
    bad "$key" "the signature is not canonical standard base64"
  elif [ "$(jq -r '.algorithm + " " + .keyId' "$key")" != "$alg $kid" ]; then
    bad "$key" "signed with another key ($(jq -r .keyId "$key")) than the published $kid"
  elif [ "$alg" = ed25519 ]; then
    openssl pkeyutl -verify -pubin -inkey "$pem" -rawin -in "$tmp/signed" -sigfile "$tmp/sig" >/dev/null 2>&1 ||
      bad "$key" "the signature does not verify under $pem"
  else
    openssl dgst -sha256 -verify "$pem" -signature "$tmp/sig" "$tmp/signed" >/dev/null 2>&1 ||
      bad "$key" "the signature does not verify under $pem"
  fi
  while IFS=$'\t' read -r file hash bytes; do
    echo "$file" >>"$tmp/listed"
    if [ ! -f "$file" ]; then bad "$file" "listed in $key but missing"; continue; fi
    [ "$(sha "$file")" = "$hash" ] && [ "$(stat -c %s "$file")" = "$bytes" ] ||
      bad "$file" "its bytes changed: SHA-256 or size differs from $key"
  done < <(jq -r '.files[] | [.key, .sha256, (.bytes | tostring)] | @tsv' "$key")
  prev_key=$key prev_sha=$this_sha
done
[ "$expect" -gt 1 ] || bad digests/0000000001.json "no digest found: not an archive"
sort "$tmp/listed" >"$tmp/listed.sorted"
uniq -d "$tmp/listed.sorted" | while read -r file; do echo "$file: listed by more than one digest"; done >"$tmp/twice"
# §1, the listed prefixes (lib/archive/digest/digestKeys.ts, listedPrefixes).
for file in history/** active/** findings/** quarantine/**; do [ -f "$file" ] && echo "$file"; done | sort >"$tmp/present"
comm -23 "$tmp/present" <(uniq "$tmp/listed.sorted") | while read -r file; do
  echo "$file: unlisted: no digest lists it (planted or copied in)"
done >>"$tmp/twice"
if [ -s "$tmp/twice" ]; then cat "$tmp/twice"; problems=$((problems + $(wc -l <"$tmp/twice"))); fi
if [ "$problems" -gt 0 ]; then echo "FAILED: $problems problem(s)"; exit 1; fi
echo "OK: $((expect - 1)) digest(s), $(wc -l <"$tmp/listed") file(s), every signature, link and hash checks"
