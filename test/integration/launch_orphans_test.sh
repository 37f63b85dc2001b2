source "$(dirname "$0")/launch_test_lib.sh"; echo PASS
