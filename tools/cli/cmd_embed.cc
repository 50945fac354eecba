// attnrt embed: a converted model as a const C array for firmware, read in place
// from flash. Writes a .c/.h pair: the array is defined once, in the .c, and the
// header declares it `extern`, so any number of files may include the header
// without a second copy of the model in flash. --section and --align place it.
//
// The arena size in the header is the *target's* plan, never this host's: kernel
// scratch depends on the vector width the kernels run with, so a plan made here
// (AVX-512, say) is not a Cortex-M's. --plan-from takes the JSON that
// `attnrt plan --json` printed on the target (or the same numbers from the
// target's own PlanModel/PlanLm); without it the header carries only the model
// and, with --seq/--batch, the shape the firmware should plan for itself.
//
// --activations auto|f32: the firmware sets it with attnrt_model_set_activations before
// planning, so the header records it (_ACTIVATIONS, an attnrt_activations code) beside the
// plan it goes with; a --plan-from plan made with another --activations sized another
// kernel's scratch and is refused by name rather than written into a header that would not
// hold. Plans written before the field existed are auto plans.
//
// --kv-dtype f32|f16|q8 (language models): the same for the KV cache's storage, which the
// firmware sets with attnrt_model_set_kv_type before planning. The header records it
// (_KV_TYPE, an attnrt_kv_type code), and a --plan-from plan made with another --kv-dtype
// sized another cache and is refused by name: a q8 plan's arena is too small for the f32
// cache a session has by default. Plans without the field are f32 plans. A model with no KV
// cache refuses a type other than f32, as run and plan do.
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/activations_option.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/embed_shape.h"
#include "cli/kv_dtype_option.h"
#include "cli/option_checks.h"
#include "cli/model_file.h"
#include "host/regular_file.h"
#include "output/output_file.h"

namespace attnrt::cli {
namespace {

struct EmbedOptions {
  std::string model, out, header, section, plan_from;
  std::string name = "attnrt_model";
  std::string activations = "auto";
  std::string kv_dtype = "f32";  // language models only
  size_t seq = 0, batch = 1, align = 64;
};

// The target's plan as read from `attnrt plan --json`.
struct TargetPlan {
  size_t arena_bytes = 0, batch = 0, seq = 0, max_seq = 0, threads = 0;
};

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// A path as it may appear in a generated // comment: bytes other than [A-Za-z0-9._/+-]
// become %XX, so no newline (or a trailing backslash, which continues a // comment)
// can turn the rest of the path into code.
std::string CommentSafe(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string safe;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '/' || c == '+' || c == '-') {
      safe += static_cast<char>(c);
    } else {
      safe += '%';
      safe += kHex[c >> 4];
      safe += kHex[c & 15];
    }
  }
  return safe;
}

// A section name the linker takes and a C string literal holds verbatim.
bool IsSectionName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$') {
      return false;
    }
  }
  return true;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A whole number field of the plan JSON; false (with *error) when missing or not one.
bool JsonSize(const nlohmann::json& j, const char* key, bool required, size_t* out,
              std::string* error) {
  if (!j.contains(key)) {
    if (required) *error = std::string("the plan has no \"") + key + "\"";
    return !required;
  }
  const nlohmann::json& v = j[key];
  if (!v.is_number_unsigned()) {
    *error = std::string("the plan's \"") + key + "\" is not a whole number";
    return false;
  }
  *out = v.get<size_t>();
  return true;
}

// Reads the target's plan and checks it was made for this model file.
bool ReadTargetPlan(const std::string& path, const OpenedModel& m, const std::string& activations,
                    const std::string& kv_dtype, TargetPlan* plan, std::string* error) {
  // Opened as a regular file only: a FIFO here would block forever (OpenRegularFile).
  int err = 0;
  std::string what;
  std::FILE* in = OpenRegularStream(path, &err, &what);
  if (in == nullptr) {
    *error = "cannot read the plan '" + path + "': " + what;
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::fclose(in);
  if (!j.is_object()) {
    *error = "the plan '" + path + "' is not a JSON object (make it with `attnrt plan --json`)";
    return false;
  }
  size_t file_bytes = 0;
  const bool lm = ArchitectureIsLanguageModel(m.model.config.arch);
  if (!JsonSize(j, "weight_file_bytes", true, &file_bytes, error)) {
    *error = "plan '" + path + "': " + *error;
    return false;
  }
  const std::string arch = ArchitectureName(m.model.config.arch);
  if (!j.contains("architecture") || !j["architecture"].is_string() ||
      j["architecture"].get<std::string>() != arch || file_bytes != m.mapping.size()) {
    *error = "the plan '" + path + "' was made for another model (" +
             (j.contains("architecture") ? j["architecture"].dump() : std::string("?")) + ", " +
             std::to_string(file_bytes) + " bytes), not this " + arch + " model of " +
             std::to_string(m.mapping.size()) + " bytes";
    return false;
  }
  const nlohmann::json planned = j.contains("activations") ? j["activations"] : "auto";
  if (!planned.is_string() || planned.get<std::string>() != activations) {
    *error = "plan '" + path + "' was made with --activations " + planned.dump() +
             ", not this embed's --activations " + activations + ", whose kernel scratch it " +
             "does not count; plan again with --activations " + activations +
             " or embed with the plan's";
    return false;
  }
  const nlohmann::json cache = j.contains("kv_dtype") ? j["kv_dtype"] : "f32";
  if (!cache.is_string() || cache.get<std::string>() != kv_dtype) {
    *error = lm ? "plan '" + path + "' was made with --kv-dtype " + cache.dump() +
                      ", not this embed's --kv-dtype " + kv_dtype + ", whose KV cache it does " +
                      "not size; plan again with --kv-dtype " + kv_dtype +
                      " or embed with the plan's"
                : "plan '" + path + "' has kv_dtype " + cache.dump() + ", but a " + arch +
                      " model has no KV cache";
    return false;
  }
  if (!JsonSize(j, "arena_bytes", true, &plan->arena_bytes, error) ||
      !JsonSize(j, "batch", true, &plan->batch, error) ||
      !JsonSize(j, "threads", true, &plan->threads, error) ||
      !JsonSize(j, lm ? "max_seq" : "seq", true, lm ? &plan->max_seq : &plan->seq, error)) {
    *error = "plan '" + path + "': " + *error;
    return false;
  }
  return true;
}

int EmbedCommand(const EmbedOptions& o) {
  const char* cmd = "embed";
  if (!IsIdentifier(o.name)) return ReportError(cmd, "--name '" + o.name + "' is not a C identifier");
  if (!EndsWith(o.out, ".c") || o.out.size() < 3) {
    return ReportError(cmd, "--out '" + o.out + "' must name the .c file to write (the header goes beside it)");
  }
  const std::string header = o.header.empty() ? o.out.substr(0, o.out.size() - 2) + ".h" : o.header;
  if (!EndsWith(header, ".h")) return ReportError(cmd, "--header '" + header + "' must end in .h");
  if (!o.section.empty() && !IsSectionName(o.section)) {
    return ReportError(cmd, "--section '" + o.section +
                                "' must be 1 to 64 characters of [A-Za-z0-9_.$]");
  }
  if (o.align < 16 || o.align > 65536 || (o.align & (o.align - 1)) != 0) {
    return ReportError(cmd, "--align " + std::to_string(o.align) +
                                " must be a power of two from 16 to 65536");
  }
  std::string error;
  if (!CheckOutputPaths({{"model", o.model}, {"--plan-from", o.plan_from}},
                        {{"--out", o.out}, {"--header", header}}, &error)) {
    return ReportError(cmd, error);
  }
  OpenedModel m;
  if (!OpenModel(o.model, &m, &error)) return ReportError(cmd, error);
  const bool lm = ArchitectureIsLanguageModel(m.model.config.arch);
  if (!lm && o.kv_dtype != "f32") {
    return ReportError(cmd, "--kv-dtype applies to language models only, not " +
                                std::string(ArchitectureName(m.model.config.arch)));
  }
  const KvType kv_type = KvDtype(o.kv_dtype);
  TargetPlan plan;
  const bool planned = !o.plan_from.empty();
  if (planned && !ReadTargetPlan(o.plan_from, m, o.activations, o.kv_dtype, &plan, &error)) {
    return ReportError(cmd, error);
  }
  if (planned && o.seq != 0 && o.seq != (lm ? plan.max_seq : plan.seq)) {
    return ReportError(cmd, "--seq " + std::to_string(o.seq) + " differs from the plan's " +
                                std::to_string(lm ? plan.max_seq : plan.seq));
  }
  // Whatever goes into the header must run on this model (embed_shape.h).
  if (planned && !CheckEmbedShape(m.model, "plan '" + o.plan_from + "'", plan.batch,
                                  lm ? plan.max_seq : plan.seq, kv_type, plan.threads,
                                  plan.arena_bytes, &error)) {
    return ReportError(cmd, error);
  }
  if (!planned && o.seq != 0 &&
      !CheckEmbedShape(m.model, "--seq/--batch", o.batch, o.seq, kv_type, 0, 0, &error)) {
    return ReportError(cmd, error);
  }
  std::string upper = o.name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const size_t n = m.mapping.size();
  const std::string guard = upper + "_EMBEDDED_H_";
  // The C API's attnrt_activations codes are LinearActivations' (asserted in attnrt_c.cc).
  const LinearActivations activations = ActivationsFromName(o.activations);

  std::ostringstream h;
  h << "/* Generated by `attnrt embed` from " << CommentSafe(o.model) << ": a converted "
    << ArchitectureName(m.model.config.arch) << " model (" << n << " bytes), defined in "
    << CommentSafe(BaseName(o.out)) << ".\n * Open it in place: attnrt_model_open(&m, "
    << o.name << "_data, " << upper << "_SIZE). Do not edit. */\n"
    << "#ifndef " << guard << "\n#define " << guard << "\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
    << "#define " << upper << "_SIZE " << n << "u\n"
    << "#define " << upper << "_ALIGN " << o.align << "u\n"
    << "/* --activations " << o.activations << ": attnrt_model_set_activations(&m, "
    << "(attnrt_activations)" << upper << "_ACTIVATIONS) before planning. */\n"
    << "#define " << upper << "_ACTIVATIONS " << static_cast<int>(activations) << "\n";
  if (lm) {  // The C API's attnrt_kv_type codes are KvType's (asserted in attnrt_c.cc).
    h << "/* --kv-dtype " << o.kv_dtype << ": attnrt_model_set_kv_type(&m, (attnrt_kv_type)"
      << upper << "_KV_TYPE) before planning. */\n"
      << "#define " << upper << "_KV_TYPE " << static_cast<int>(kv_type) << "\n";
  }
  if (planned) {
    h << "/* The target's arena plan, from " << CommentSafe(BaseName(o.plan_from)) << " (`attnrt plan --json` on the target). */\n"
      << "#define " << upper << "_PLAN_BATCH " << plan.batch << "u\n"
      << "#define " << upper << (lm ? "_PLAN_MAX_SEQ " : "_PLAN_SEQ ")
      << (lm ? plan.max_seq : plan.seq) << "u\n"
      << "#define " << upper << "_PLAN_THREADS " << plan.threads << "u\n"
      << "#define " << upper << "_ARENA_BYTES " << plan.arena_bytes << "u\n";
  } else if (o.seq != 0) {
    h << "/* The shape to plan for; plan on the target (no arena size: see attnrt embed --help). */\n"
      << "#define " << upper << "_PLAN_BATCH " << o.batch << "u\n"
      << "#define " << upper << (lm ? "_PLAN_MAX_SEQ " : "_PLAN_SEQ ") << o.seq << "u\n";
  }
  h << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
    << "extern const uint8_t " << o.name << "_data[" << upper << "_SIZE];\n"
    << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

  std::ostringstream c;
  c << "/* Generated by `attnrt embed` from " << CommentSafe(o.model) << "; declared in "
    << CommentSafe(BaseName(header)) << ". Do not edit. */\n"
    << "#include \"" << CommentSafe(BaseName(header)) << "\"\n\n"
    << "const uint8_t " << o.name << "_data[" << upper << "_SIZE]\n    __attribute__((aligned("
    << o.align << ")";
  if (!o.section.empty()) c << ", section(\"" << o.section << "\")";
  c << ")) = {";
  static const char kHex[] = "0123456789abcdef";
  const uint8_t* data = m.mapping.data();
  std::string line;
  for (size_t i = 0; i < n; ++i) {
    if (i % 16 == 0) line += "\n ";
    line += " 0x";
    line += kHex[data[i] >> 4];
    line += kHex[data[i] & 15];
    line += ',';
    if (line.size() > 4096) {
      c << line;
      line.clear();
    }
  }
  c << line << "\n};\n";
  const std::string htext = h.str(), ctext = c.str();
  if (!WriteOutputFile(header, htext.data(), htext.size(), &error) ||
      !WriteOutputFile(o.out, ctext.data(), ctext.size(), &error)) {
    return ReportError(cmd, error);
  }
  std::printf("embed: %s (%zu bytes) -> %s + %s as %s_data%s\n", o.model.c_str(), n,
              o.out.c_str(), header.c_str(), o.name.c_str(),
              planned ? (", target arena " + std::to_string(plan.arena_bytes) + " bytes for " +
                         std::to_string(plan.threads) + " thread(s)").c_str()
                      : ", no arena size (no --plan-from)");
  return 0;
}

}  // namespace

void AddEmbedCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<EmbedOptions>();
  CLI::App* cmd = app.add_subcommand(
      "embed",
      "Write a converted model as a C array for firmware: a .c defining it once and a .h "
      "declaring it extern. The header's arena size is the target's plan (--plan-from), never "
      "this host's: kernel scratch depends on the target's vector width");
  cmd->add_option("model", o->model, "Converted model file")->required();
  cmd->add_option("-o,--out", o->out, "The .c file to write, e.g. model_data.c")->required();
  cmd->add_option("--header", o->header, "The header to write (default: --out with .h)");
  cmd->add_option("--name", o->name, "C identifier prefix")->capture_default_str();
  cmd->add_option("--section", o->section,
                  "Linker section for the array, e.g. .rodata.model or .qspi_flash");
  cmd->add_option("--align", o->align, "Alignment of the array in bytes (power of two, 16..65536)")
      ->capture_default_str();
  cmd->add_option("--plan-from", o->plan_from,
                  "The target's plan: the JSON `attnrt plan MODEL --seq N --json` (or --max-seq "
                  "for a language model) printed on the target; gives _ARENA_BYTES");
  cmd->add_option("--seq", o->seq,
                  "Sequence length (max_seq for a language model) the firmware plans for; "
                  "emits _PLAN_SEQ/_PLAN_BATCH only, no arena size")
      ->check(WholeNumber(1, kMaxDim));
  cmd->add_option("--batch", o->batch, "Batch size that goes with --seq")
      ->capture_default_str()
      ->check(WholeNumber(1, kMaxDim));
  AddActivationsOption(cmd, &o->activations,
                       "the header records it as _ACTIVATIONS for attnrt_model_set_activations, "
                       "and a --plan-from plan must have been made with the same --activations");
  AddKvDtypeOption(cmd, &o->kv_dtype,
                   "language models only: the header records it as _KV_TYPE for "
                   "attnrt_model_set_kv_type, and a --plan-from plan must have been made with "
                   "the same --kv-dtype");
  cmd->callback([o, exit_code] { *exit_code = EmbedCommand(*o); });
}

}  // namespace attnrt::cli
