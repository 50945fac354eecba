/* QEMU TCG plugin that counts the guest instructions an emulated run executes and prints
 * the total when QEMU exits (also on a semihosting exit). Used to compare the work of
 * firmware images across cores, e.g. Cortex-M7 vs Cortex-M55 (MVE):
 *
 *   cc -shared -fPIC -O2 -o insn_count.so toolchains/boards/insn_count_plugin.c
 *   qemu-system-arm -M mps2-an500 -cpu cortex-m7 -nographic \
 *     -semihosting-config enable=on,target=native -plugin ./insn_count.so -kernel IMAGE.elf
 *   -> "insn_count: 12345678 guest instructions" on stderr
 *
 * Each translated block adds its instruction count when it runs (an inline add, no
 * callback), so a block left early by an exception is counted whole: the total is exact
 * to within a few instructions per exception. Debian ships QEMU with plugin support but
 * without <qemu-plugin.h>, so the few declarations of plugin API version 1 (QEMU 7.2)
 * that this file uses are written out below. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;  /* only passed through */
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
void qemu_plugin_outs(const char* string);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* One counter: the Cortex-M boards have a single vCPU. */
static uint64_t instructions;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &instructions,
                                           qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  char line[80];
  snprintf(line, sizeof(line), "insn_count: %" PRIu64 " guest instructions\n", instructions);
  qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
