#!/usr/bin/env bash
# Runs every fuzz target for a fixed time (default 20 s each), starting from
# the committed seed corpus; what a run discovers goes to a scratch folder,
# never into the repository. A crash fails the script and leaves its input
# in fuzz/artifacts/<target>/ (keep it as a regression test, see
# docs/reliability.md).
#
#   fuzz/run.sh [seconds] [target...]   (FUZZ_SEED: libFuzzer seed, default 1,
#   so a CI run is repeatable; set another to explore)
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-20}
shift || true
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
  # occ's config parser is JavaScript: fuzzed by a Node script instead.
  targets+=(occ_config)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# cargo fuzz keeps its builds in fuzz/target unless told: CARGO_TARGET_DIR
# (CI's persistent build cache) is passed on as its --target-dir.
target_dir=()
if [ -n "${CARGO_TARGET_DIR:-}" ]; then target_dir=(--target-dir "$CARGO_TARGET_DIR"); fi
cargo +nightly fuzz build "${target_dir[@]}"
for target in "${targets[@]}"; do
  if [ "$target" = occ_config ]; then
    echo "== fuzz $target for ${seconds}s"
    node occ-config.mjs "$seconds" "${FUZZ_SEED:-1}"
    continue
  fi
  mkdir -p "$scratch/$target"
  echo "== fuzz $target for ${seconds}s"
  status=0
  cargo +nightly fuzz run "${target_dir[@]}" "$target" "$scratch/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    >"$scratch/$target.log" 2>&1 || status=$?
  grep -E '^(Done|stat::peak_rss_mb)' "$scratch/$target.log" || true
  if [ "$status" -ne 0 ]; then
    tail -40 "$scratch/$target.log"
    exit "$status"
  fi
done
