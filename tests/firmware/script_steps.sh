# Sourced by the scripts that build firmware sources against an installed package
# (tests/firmware_consumer/out_of_tree_test.sh, tests/packaging/host_fw_test.sh): how they
# log a step and run one quietly, and the converted demo encoder layer both of them run.
# The caller sets `test_name` (the prefix of every line) and `work` (a scratch folder) first.

step() { echo "$test_name: $*"; }

# Runs a command quietly; on failure shows its output, names the step and exits 1.
quiet() {
  local what=$1; shift
  if ! "$@" >"$work/step.log" 2>&1; then
    cat "$work/step.log"
    echo "$test_name: FAIL: $what" >&2
    exit 1
  fi
}

# models/demo (an nn.TransformerEncoderLayer) converted by ATTNRT, embedded as
# OUT_DIR/model_data.c/.h (batch 1, seq 32), and its input with PyTorch's output as
# OUT_DIR/model_io.h: what tests/firmware_consumer/main.c runs and checks.
demo_model_files() {  # ATTNRT PYTHON SOURCE_DIR OUT_DIR
  local attnrt=$1 python=$2 src=$3 out=$4
  mkdir -p "$out"
  quiet "attnrt convert" "$attnrt" convert --arch encoder-layer \
    --config "$src/models/demo/config.json" "$src/models/demo/model.safetensors" \
    -o "$out/demo.attnrt"
  quiet "attnrt embed" "$attnrt" embed "$out/demo.attnrt" -o "$out/model_data.c" \
    --section .attnrt_weights --seq 32 --batch 1
  quiet "npy_to_header.py" "$python" "$src/tests/firmware/npy_to_header.py" "$out/model_io.h" \
    "model_input=$src/models/demo/input.npy" "model_expected=$src/models/demo/expected.npy"
}
