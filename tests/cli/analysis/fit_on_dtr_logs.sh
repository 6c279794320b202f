#!/usr/bin/env bash
# End-to-end: 'gpumemsim fit' on the DTR paper's ResNet-32 and U-Net logs: every answer passes
# when simulated on its own and the budget just below it fails (check_fit).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fit_lib.sh"
[ -n "${DTR_UNET:-}" ] || fail "the DTR logs are missing from $LOGS"
for log in "$DTR_RESNET" "$DTR_UNET"; do
  rep=$("$GMS_BIN" fit "$log" --policies dtr,dtr-eq,msps,lru --max-overhead 1.3 --json -j 2) \
    || fail "fit $log"
  check_fit "$log" "$rep"
done
echo ok
