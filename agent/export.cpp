#include "agent/export.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "agent/commands.h"
#include "agent/export_files.h"
#include "agent/proposer.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"

namespace kopt {

namespace {

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::error("cannot write " + path);
  f << text;
  return f ? Status() : Status::error("cannot write " + path);
}

}  // namespace

Status candidate_source_of(const std::string& dir, const std::string& entry_file,
                           std::string* source) {
  std::string generated;
  KOPT_RETURN_IF_ERROR(read_text_file(dir + "/" + entry_file, &generated));
  return candidate_source_in(dir, entry_file, generated, source);
}

Status candidate_source_in(const std::string& dir, const std::string& entry_file,
                           const std::string& generated, std::string* source) {
  const size_t m = generated.find(kSourceMarker);
  if (m != std::string::npos) {
    const size_t from = m + std::char_traits<char>::length(kSourceMarker);
    const size_t end = generated.find(" ----", from);
    const std::string name = generated.substr(from, end - from);
    if (end == std::string::npos || name.find('/') != std::string::npos)
      return Status::error(entry_file + ": malformed candidate-source line; export again");
    KOPT_RETURN_IF_ERROR(read_text_file(dir + "/" + name, source));
    if (source->rfind(kSourceFileHeader, 0) == 0)
      source->erase(0, std::char_traits<char>::length(kSourceFileHeader));
    return Status();
  }
  const size_t b = generated.find(kEmbeddedBegin);
  const size_t e = b == std::string::npos ? b : generated.find(kEmbeddedEnd, b);
  if (e == std::string::npos)
    return Status::error(entry_file + ": no candidate-source section; export again");
  const size_t from = b + std::char_traits<char>::length(kEmbeddedBegin);
  *source = generated.substr(from, e - from);
  return Status();
}

Status read_export_manifest(const Problem& problem, const std::string& path,
                            std::vector<ManifestEntry>* out) {
  out->clear();
  std::string text;
  KOPT_RETURN_IF_ERROR(read_text_file(path, &text));
  return parse_export_manifest(problem, text, path, out);
}

Status parse_export_manifest(const Problem& problem, const std::string& text,
                             const std::string& path, std::vector<ManifestEntry>* out) {
  out->clear();
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  // Version 1 (before problems were plug-ins) is a bare array of W4A16
  // entries; later ones an object with their version, problem and entries.
  int version = 1;
  const nlohmann::json* entries = &doc;
  if (doc.is_object() && doc.contains("manifest_version") &&
      doc["manifest_version"].is_number_integer()) {
    version = doc["manifest_version"].get<int>();
    if (version > kManifestVersion)
      return Status::error(path + ": manifest version " + std::to_string(version) +
                           " is newer than this kopt reads (" + std::to_string(kManifestVersion) +
                           "); use a newer kopt");
    if (doc.value("problem", std::string()) != problem.id())
      return Status::error(path + ": a manifest of problem " + doc.value("problem", std::string()) +
                           ", not " + problem.id() + " (give --problem)");
    if (!doc.contains("entries") || !doc["entries"].is_array())
      return Status::error(path + ": a manifest without an \"entries\" list");
    entries = &doc["entries"];
  }
  if (!entries->is_array())
    return Status::error(path + " is not an export manifest (versioned object or JSON array)");
  for (const auto& e : *entries) {
    if (!e.is_object() || !e.contains("shape") || !e["shape"].is_string())
      return Status::error(path + ": every entry needs a \"shape\"");
    ManifestEntry m;
    m.row = e;
    // A manifest names its problem (older ones, before problems were
    // plug-ins, were all W4A16 and name none: the caller's problem stands).
    if (e.contains("problem") && e["problem"].is_string() &&
        e["problem"].get<std::string>() != problem.id())
      return Status::error(path + ": an entry of problem " + e["problem"].get<std::string>() +
                           ", not " + problem.id());
    if (Status s = problem.parse_shape(e["shape"].get<std::string>(), {}, &m.shape); !s.ok())
      return Status::error(path + ": " + s.message());
    if (e.contains("params") && e["params"].is_object())
      for (const auto& [name, value] : e["params"].items()) {
        if (!value.is_number_integer())
          return Status::error(path + ": parameters must be integers");
        m.params[name] = value.get<int64_t>();
      }
    m.file = e.contains("file") && e["file"].is_string() ? e["file"].get<std::string>()
                                                         : tuned_kernel_symbol(m.shape) + ".hip";
    out->push_back(std::move(m));
  }
  return Status();
}

namespace {

// The tuned entries already in a folder, with their sources, to keep them
// when only the fallbacks are rewritten. Reads both the current manifest and
// the older one (no "symbol" or "targets": the target is the architecture its
// header names, and AMD takes it if it builds for gfx906 without scratch).
Status read_tuned_entries(const Problem& problem, const std::string& dir, Sandbox& sandbox,
                          std::vector<ExportedKernel>* out, nlohmann::json* manifest) {
  const std::string path = dir + "/MANIFEST.json";
  if (access(path.c_str(), F_OK) != 0) return Status();  // nothing to keep
  std::vector<ManifestEntry> entries;
  KOPT_RETURN_IF_ERROR(read_export_manifest(problem, path, &entries));
  for (const ManifestEntry& entry : entries) {
    const nlohmann::json& e = entry.row;
    const Shape& shape = entry.shape;
    const std::string& file = entry.file;
    const std::map<std::string, int64_t>& params = entry.params;
    ExportedKernel k;
    std::string source, generated;
    KOPT_RETURN_IF_ERROR(read_text_file(dir + "/" + file, &generated));
    KOPT_RETURN_IF_ERROR(candidate_source_in(dir, file, generated, &source));
    // A kernel of the shipped library enters as a candidate here.
    const CandidateRef value = enter_candidate(source, params);
    if (!value->ok()) return Status::error(file + ": " + value->status.message());
    k.candidate = value->candidate;
    // The provenance header: the comment lines after the first.
    std::istringstream lines(generated);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line) && line.rfind("//", 0) == 0)
      k.header += (k.header.empty() ? "" : "\n") + line;
    k.symbol = e.value("symbol", file.substr(0, file.rfind('.')));
    k.shape = shape;
    if (e.contains("targets") && e["targets"].is_array()) {
      for (const auto& t : e["targets"])
        if (t.is_string()) k.targets.push_back(t.get<std::string>());
      if (e.contains("target_notes") && e["target_notes"].is_object())
        for (const auto& [t, note] : e["target_notes"].items())
          if (note.is_string()) k.target_notes[t] = note.get<std::string>();
    } else {
      static const std::regex arch_re(R"(\((sm_\d+|gfx[0-9a-f]+), driver)");
      std::smatch m;
      if (!std::regex_search(k.header, m, arch_re))
        return Status::error(file + ": its header names no architecture; export it again");
      k.targets.push_back(m[1]);
      const TargetResources amd = sandbox.check_amd(*value, shape);
      if (!is_amd_target(m[1]) && amd.checked && amd.compiled && amd.spill_bytes == 0) {
        k.targets.push_back(kOfflineTarget);
        k.target_notes[kOfflineTarget] =
            fmt::format("tuned on {}, not measured on {}", e.value("device", std::string(m[1])),
                        kOfflineTarget);
      } else if (!amd.checked) {
        fmt::print(stderr,
                   "{}: gfx906 not checked here ({}); the AMD build takes the generic "
                   "path for this shape\n",
                   shape.name(), amd.note);
      }
    }
    nlohmann::json row = e;
    row["problem"] = problem.id();
    row["symbol"] = k.symbol;
    row["targets"] = k.targets;
    row["target_notes"] = k.target_notes;
    manifest->push_back(row);
    out->push_back(std::move(k));
  }
  return Status();
}

// The shape's tuned entries from the database: its best candidates,
// re-verified and timed on this GPU, until one serves this GPU's
// architecture and one (the same or the next best) builds for gfx906
// without scratch; each into `tuned` and `manifest`.
void export_tuned_shape(const Problem& problem, const Shape& shape, Database& db, Sandbox& sandbox,
                        const DeviceInfo& device, std::vector<ExportedKernel>* tuned,
                        nlohmann::json* manifest) {
  std::vector<BestRow> best;
  db.best(shape.key(), device.name, 200, &best);
  bool for_device = false;  // the entry for this GPU's own architecture is chosen
  bool amd_served = false;
  int tried = 0;
  for (const auto& row : best) {
    if (for_device && amd_served) break;
    // Past the device's own pick, only a candidate that can serve gfx906.
    TargetResources recorded =
        eval_result_from_json(nlohmann::json::parse(row.evaluation.record_json, nullptr, false))
            .targets[kOfflineTarget];
    if (for_device && recorded.checked && !(recorded.compiled && recorded.spill_bytes == 0))
      continue;
    // A row whose text no longer parses (a contract this version refuses) is
    // said and skipped before it costs a re-verification.
    if (!row.candidate.parsed->ok()) {
      fmt::print(stderr, "{}: candidate {}: {}; trying the next\n", shape.name(), row.candidate.id,
                 row.candidate.parsed->status.message());
      continue;
    }
    if (++tried > 12) break;  // each try is a re-verification on the GPU
    EvalRequest req;
    req.candidate = row.candidate.parsed;
    req.shape = shape;
    req.seed = static_cast<uint64_t>(row.candidate.id) * 7919 + 17;
    req.trials = 2;
    EvalResult r = sandbox.evaluate(req);
    if (!r.ok()) {
      fmt::print(stderr, "{}: candidate {} failed re-verification ({}: {}); trying the next\n",
                 shape.name(), row.candidate.id, verdict_name(r.verdict), r.message);
      continue;
    }
    // This machine may lack the AMD toolchain while the database holds the
    // check (`kopt check-amd --db`): then the recorded resources stand.
    TargetResources& amd = r.targets[kOfflineTarget];
    if (!amd.checked) amd = recorded;
    // Shipped kernels must build for gfx906 (even those only NVIDIA runs).
    if (amd.checked && !amd.compiled) {
      fmt::print(stderr, "{}: candidate {} does not build for gfx906; trying the next\n",
                 shape.name(), row.candidate.id);
      continue;
    }
    const bool amd_ok = amd.checked && amd.spill_bytes == 0;
    if (!amd.checked)
      fmt::print(stderr,
                 "{}: candidate {}: gfx906 not checked here ({}); run `kopt check-amd --db` "
                 "where the toolchain is, then export again\n",
                 shape.name(), row.candidate.id, amd.note);
    if (for_device && !amd_ok) continue;
    ExportedKernel k;
    k.symbol = tuned_kernel_symbol(shape) + (for_device ? "_" + std::string(kOfflineTarget) : "");
    k.shape = shape;
    k.candidate = req.candidate->candidate;
    if (!for_device) k.targets.push_back(device.arch);
    if (amd_ok) {
      k.targets.push_back(kOfflineTarget);
      k.target_notes[kOfflineTarget] =
          fmt::format("tuned on {}, not measured on {}", device.name, kOfflineTarget);
      amd_served = true;
    } else if (amd.checked) {
      fmt::print(stderr,
                 "{}: candidate {} needs {} B of gfx906 scratch: it serves {} only; looking "
                 "for the best candidate that builds for gfx906 without scratch\n",
                 shape.name(), row.candidate.id, amd.spill_bytes, device.arch);
    }
    k.header = fmt::format(
        "// Shape {}: candidate {} of run {} ({}, parameters {}), key {}; serves {}.\n"
        "// Re-verified and timed by kopt export on {}: {} ({}, driver {}, {}):\n"
        "// {:.2f} us median, {:.0f} GB/s, {:.1f}% of the measured read bandwidth ({:.0f} GB/s); "
        "{}.",
        shape.name(), row.candidate.id, row.candidate.run_id, row.candidate.name,
        row.candidate.params_json, row.candidate.key, fmt::join(k.targets, ", "), now_utc(),
        device.name, device.arch, device.driver_version, device.compiler, r.timing->median_us,
        r.timing->gbps, 100 * r.timing->fraction_of_read_bw, device.read_bandwidth_gbps,
        r.timing->method);
    manifest->push_back({{"problem", problem.id()},
                         {"shape", shape.name()},
                         {"symbol", k.symbol},
                         {"file", k.symbol + ".hip"},
                         {"targets", k.targets},
                         {"target_notes", k.target_notes},
                         {"candidate", row.candidate.id},
                         {"run", row.candidate.run_id},
                         {"name", row.candidate.name},
                         {"params", nlohmann::json::parse(row.candidate.params_json)},
                         {"key", row.candidate.key},
                         {"median_us", r.timing->median_us},
                         {"gbps", r.timing->gbps},
                         {"fraction_of_read_bw", r.timing->fraction_of_read_bw},
                         {"gfx906_scratch_bytes", amd.spill_bytes},
                         {"device", device.name},
                         {"arch", device.arch},
                         {"driver", device.driver_version},
                         {"compiler", device.compiler},
                         {"date", now_utc()}});
    fmt::print("{}: candidate {} ({} {}) {:.2f} us, serves {}\n", shape.name(), row.candidate.id,
               row.candidate.name, row.candidate.params_json, r.timing->median_us,
               fmt::join(k.targets, ", "));
    tuned->push_back(k);
    for_device = true;
  }
  if (!for_device)
    fmt::print("{}: no verified candidate; the generic rule will serve it\n", shape.name());
  else if (!amd_served)
    fmt::print(
        "{}: no candidate builds for gfx906 without scratch; the AMD library takes the "
        "generic rule there\n",
        shape.name());
}

// The library's generic variants: each a seed with fixed parameters, built
// for any shape.
Status generic_variants(const Problem& problem, const LibrarySpec& library,
                        std::vector<ExportedKernel>* generic) {
  for (const auto& v : library.generic_variants) {
    ExportedKernel k;
    k.symbol = v.symbol;
    k.shape = Shape{problem.id(), {}};
    const Seed* seed = find_seed(problem, v.seed);
    if (!seed) return Status::error("generic variant " + v.symbol + ": no seed " + v.seed);
    const CandidateRef value = seed_candidate(*seed, v.params);
    if (!value->ok())
      return Status::error("generic variant " + v.symbol + ": " + value->status.message());
    k.candidate = value->candidate;
    k.header = fmt::format("// Generic variant: seed '{}' with {} ({}).", v.seed,
                           v.params.empty() ? "its defaults" : params_to_json(v.params), v.purpose);
    generic->push_back(k);
  }
  return Status();
}

// Each distinct kernel source once and each entry a small file with its
// parameters; the files of an earlier export that nothing names any more
// are removed. The number of sources into `sources`.
Status write_kernel_files(const Problem& problem, const std::string& out_dir,
                          const std::vector<ExportedKernel>& tuned,
                          const std::vector<ExportedKernel>& generic, size_t* sources) {
  Status s;
  std::set<std::string> sources_written;
  for (const auto* list : {&tuned, &generic})
    for (const auto& k : *list) {
      GeneratedKernel g;
      if (!(s = generate_kernel_source(problem, k, &g)).ok()) return s;
      if (!(s = write_file(out_dir + "/" + k.symbol + ".hip", g.entry_text)).ok()) return s;
      if (sources_written.insert(g.source_file).second &&
          !(s = write_file(out_dir + "/" + g.source_file,
                           "// Generated by `kopt export`: a candidate's source, included by the "
                           "entries that use it.\n" +
                               g.source_text))
               .ok())
        return s;
    }
  std::set<std::string> keep = sources_written;
  for (const auto* list : {&tuned, &generic})
    for (const auto& k : *list) keep.insert(k.symbol + ".hip");
  if (DIR* d = opendir(out_dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      const bool generated =
          (name.size() > 4 && name.substr(name.size() - 4) == ".hip") ||
          (name.rfind("src_", 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".inc");
      if (generated && !keep.count(name)) std::remove((out_dir + "/" + name).c_str());
    }
    closedir(d);
  }
  *sources = sources_written.size();
  return Status();
}

// The generic rule's leave-one-out check, printed: how far the variant it
// picks without each probe shape is from the fastest there.
void print_rule_check(const LibrarySpec& library, const GenericMeasurements& measured) {
  const auto checks = leave_one_out(library, measured);
  double worst = 1, log_sum = 0;
  int above = 0;
  for (const auto& c : checks) {
    worst = std::max(worst, c.ratio);
    log_sum += std::log(c.ratio);
    if (c.ratio > 1.3) {
      ++above;
      fmt::print("  rule check {}: picks {} at {:.2f}x the fastest ({})\n", c.shape, c.chosen,
                 c.ratio, c.fastest);
    }
  }
  fmt::print(
      "generic rule from {} probe shapes measured on {}: leave-one-out, the variant picked "
      "without each probe is {:.3f}x the fastest there on average (geometric), {:.2f}x at "
      "worst; {} above 1.3x\n",
      checks.size(), measured.device, checks.empty() ? 1.0 : std::exp(log_sum / checks.size()),
      worst, above);
}

}  // namespace

int run_export(const ExportCommand& cmd) {
  auto fail = [](const std::string& m, int code) {
    fmt::print(stderr, "kopt export: {}\n", m);
    return code;
  };
  if (cmd.out_dir.empty()) return fail("--out DIR is required", kExitUsage);
  if (cmd.drop_tuned && !cmd.fallbacks_only)
    return fail("--drop-tuned goes with --fallbacks-only", kExitUsage);
  const Problem* problem = nullptr;
  std::vector<Shape> shapes;
  Status st = problem_by_id(cmd.problem, &problem);
  if (st.ok())
    st = resolve_shapes(*problem, cmd.suite, cmd.shapes, shape_defaults(cmd.group), &shapes);
  if (!st.ok()) return fail(st.message(), kExitUsage);
  const LibrarySpec library = problem->library();
  mkdir(cmd.out_dir.c_str(), 0755);
  std::vector<ExportedKernel> tuned, generic;
  nlohmann::json manifest = nlohmann::json::array();
  std::unique_ptr<Database> db;
  Sandbox sandbox;
  DeviceInfo device;
  Status s;
  const bool needs_gpu = !cmd.fallbacks_only || cmd.measure_generic;
  if (!cmd.fallbacks_only) {
    s = Database::open_existing(cmd.db_path, &db);
    if (!s.ok()) return fail(s.message(), kExitUsage);
  }
  if (needs_gpu) {
    s = sandbox.device_info(true, &device);
    if (!s.ok()) return fail("this needs a GPU: " + s.message(), kExitNoDevice);
  }
  if (cmd.fallbacks_only && !cmd.drop_tuned) {
    if (!(s = read_tuned_entries(*problem, cmd.out_dir, sandbox, &tuned, &manifest)).ok())
      return fail(s.message() + " (--drop-tuned writes the fallbacks without them)", kExitUsage);
    if (!tuned.empty())
      fmt::print("keeping the {} tuned entries in {} (--drop-tuned drops them)\n", tuned.size(),
                 cmd.out_dir);
  }
  for (const Shape& shape : cmd.fallbacks_only ? std::vector<Shape>{} : shapes)
    export_tuned_shape(*problem, shape, *db, sandbox, device, &tuned, &manifest);

  // The generic variants and their measured rule.
  GenericMeasurements measured;
  const std::string measured_path = cmd.out_dir + "/GENERIC.json";
  const bool have_measured = read_generic_measurements(*problem, measured_path, &measured).ok();
  if (cmd.measure_generic) {
    // The named shapes, or by default every suite's and the edge shapes.
    const std::vector<Shape> probes = shapes.empty() ? library.probe_shapes : shapes;
    s = measure_generic(*problem, sandbox, device, probes, &measured, [&] {
      return write_file(measured_path, generic_measurements_json(measured).dump(1) + "\n");
    });
    if (!s.ok()) return fail(s.message(), kExitInternal);
  } else if (!have_measured) {
    fmt::print(stderr,
               "no {}: the generic variants are tried in table order (kopt export "
               "--measure-generic measures them)\n",
               measured_path);
  }
  if (!(s = generic_variants(*problem, library, &generic)).ok())
    return fail(s.message(), kExitInternal);

  size_t sources = 0;
  if (!(s = write_kernel_files(*problem, cmd.out_dir, tuned, generic, &sources)).ok())
    return fail(s.message(), kExitInternal);
  const GenericMeasurements* rule = measured.order.empty() ? nullptr : &measured;
  s = write_file(cmd.out_dir + "/dispatch.inc", generate_dispatch(library, tuned, generic, rule));
  if (s.ok()) s = write_file(cmd.out_dir + "/platforms.cmake", generate_platform_kernels(tuned));
  if (s.ok())
    s = write_file(cmd.out_dir + "/kopt_prelude.h",
                   "// Generated by `kopt export`: the kopt device prelude and the helpers of "
                   "the problem " +
                       problem->id() + ".\n#pragma once\n" + problem_prelude(*problem));
  std::string problem_header;
  if (s.ok()) s = generate_problem_header(*problem, library, &problem_header);
  if (s.ok()) s = write_file(cmd.out_dir + "/kopt_problem.h", problem_header);
  const std::string description = generate_library_description(*problem, library);
  if (s.ok() && !description.empty()) s = write_file(cmd.out_dir + "/library.cmake", description);
  const nlohmann::json manifest_doc = {{"manifest_version", kManifestVersion},
                                       {"problem", problem->id()},
                                       {"library", library.name},
                                       {"entries", manifest}};
  if (s.ok()) s = write_file(cmd.out_dir + "/MANIFEST.json", manifest_doc.dump(2) + "\n");
  if (!s.ok()) return fail(s.message(), kExitInternal);
  if (rule) print_rule_check(library, measured);
  fmt::print("wrote {} tuned entries, {} generic variants and {} kernel sources to {}\n",
             tuned.size(), generic.size(), sources, cmd.out_dir);
  return kExitOk;
}

}  // namespace kopt
