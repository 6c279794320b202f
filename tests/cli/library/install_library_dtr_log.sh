#!/usr/bin/env bash
# install_library.sh on a shared DTR log (the transformer log of the DTR artifact).
exec "$(dirname "$0")/install_library.sh" \
  "$GMS_SHARED_DIR/traces/dtr-iclr21/transformer-10-8000000000.0-2020-10-1-10-56-5-default.log"
