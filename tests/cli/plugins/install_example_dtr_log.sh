#!/usr/bin/env bash
# install_example.sh on a shared DTR log (the unet log of the DTR artifact).
exec "$(dirname "$0")/install_example.sh" \
  "$GMS_SHARED_DIR/traces/dtr-iclr21/unet-6-8000000000.0-2020-10-1-10-57-18-default.log"
