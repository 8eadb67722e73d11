// `kopt export`: writes the shipped library's generated sources (kernels/):
// each shape's best candidate per target architecture, re-verified on this
// GPU; the generic variants with the rule that picks among them for any
// other shape, derived from measured times; a dispatch table and a manifest.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/common/kopt_generic_rule.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/status.h"

namespace kopt {

class Sandbox;

struct ExportCommand {
  std::string problem;  // empty: the default problem
  std::string db_path = "kopt.db";
  std::string suite;
  std::vector<std::string> shapes;
  int64_t group = 64;
  std::string out_dir;
  // No database and no GPU: rewrite the generic variants and the rule, and
  // keep the tuned entries already in out_dir (unless drop_tuned).
  bool fallbacks_only = false;
  bool drop_tuned = false;
  // Measure the generic variants on probe shapes (GPU): the --suite/--shape
  // shapes, or by default every suite's and shapes at their edges; times
  // already in out_dir/GENERIC.json for this device are kept (so an
  // interrupted measurement resumes) and new shapes are added.
  bool measure_generic = false;
};
int run_export(const ExportCommand& cmd);

// One entry of the shipped library (exposed for tests).
struct ExportedKernel {
  std::string symbol;   // C identifier prefix, e.g. k7168x9216_g64 or generic_gen
  std::string header;   // provenance comment lines
  Candidate candidate;  // source, contract, parameter values
  Shape shape;          // the tuned shape; no variables for a generic variant
  // Architectures this entry is dispatched on (e.g. "sm_90", "gfx906");
  // empty for a generic variant (every architecture).
  std::vector<std::string> targets;
  // Why an entry serves a target it was not measured on, e.g. "tuned on
  // NVIDIA H100 80GB HBM3, not measured on gfx906".
  std::map<std::string, std::string> target_notes;
};

// The symbol (and file name stem) of a shape's tuned kernel: k7168x9216_g64.
std::string tuned_kernel_symbol(const Shape& shape);

// kopt_problem.h of a library: KoptShapeArgs with the problem's variables,
// kopt_same_shape, the generic rule's two variables, and what the library's
// C API needs of the problem (its weight arrays' sizes, the shapes it
// accepts). Fails on an expression of the description that does not parse.
Status generate_problem_header(const Problem& problem, const LibrarySpec& library,
                               std::string* out);

// library.cmake of a library: the problem's description as the variables
// kopt_problem_library (cmake/KoptLibrary.cmake) generates the C API from
// (the prefix, the header's summary, create's parameters). "" where the
// problem ships no library of its own (no weight arrays).
std::string generate_library_description(const Problem& problem, const LibrarySpec& library);

// A generated entry file and the kernel source it includes (each distinct
// source is written once and shared by every entry that uses it).
struct GeneratedKernel {
  std::string entry_text;   // <symbol>.hip: parameters, renames, launch code
  std::string source_file;  // src_<name>_<hash>.inc
  std::string source_text;  // the candidate's source exactly as evaluated
};
Status generate_kernel_source(const Problem& problem, const ExportedKernel& k,
                              GeneratedKernel* out);

// The candidate source an entry file names, read from the folder it is in.
Status candidate_source_of(const std::string& dir, const std::string& entry_file,
                           std::string* source);
// The same from the entry file's text (`entry_file` names it in errors).
Status candidate_source_in(const std::string& dir, const std::string& entry_file,
                           const std::string& entry_text, std::string* source);

// MANIFEST.json's format: {"manifest_version", "problem", "library",
// "entries": [...]}; version 1 was a bare array of W4A16 entries (still read).
constexpr int kManifestVersion = 2;

// One entry of an export manifest (MANIFEST.json), as `kopt bench --tuned`
// and `kopt export --fallbacks-only` read it.
struct ManifestEntry {
  Shape shape;
  std::string file;  // the entry file beside the manifest
  std::map<std::string, int64_t> params;
  nlohmann::json row;  // the whole entry, fields of newer exports included
};
// Reads MANIFEST.json: a JSON array, each entry with a valid "shape" and
// integer "params"; "file" defaults to the shape's tuned entry file.
Status read_export_manifest(const Problem& problem, const std::string& path,
                            std::vector<ManifestEntry>* out);
// The same from the manifest's text (`path` names it in errors).
Status parse_export_manifest(const Problem& problem, const std::string& text,
                             const std::string& path, std::vector<ManifestEntry>* out);

// Measured times of the generic variants (out_dir/GENERIC.json).
struct GenericMeasurements {
  std::string device, arch, date;
  // probe shape name -> variant symbol -> µs (0: not supported or failed)
  std::map<std::string, std::map<std::string, double>> us;
  std::vector<Shape> order;  // probe shapes in measurement order
};
Status read_generic_measurements(const Problem& problem, const std::string& path,
                                 GenericMeasurements* out);
nlohmann::json generic_measurements_json(const GenericMeasurements& m);
// The probe table the library carries, one row per probe shape.
std::vector<KoptGenericProbe> generic_probes(const LibrarySpec& library,
                                             const GenericMeasurements& m);

// Leave-one-out check of the rule: for each probe, the variant the rule picks
// without that probe, against the fastest variant measured there.
struct RuleCheck {
  std::string shape, chosen, fastest;
  double ratio = 1;  // chosen / fastest
};
std::vector<RuleCheck> leave_one_out(const LibrarySpec& library, const GenericMeasurements& m);

// The generic variants, measured on each probe shape not yet in `m` for
// this device; `save` is called after each shape so a killed run loses one.
Status measure_generic(const Problem& problem, Sandbox& sandbox, const DeviceInfo& device,
                       const std::vector<Shape>& shapes, GenericMeasurements* m,
                       const std::function<Status()>& save);

// The dispatch table: tuned entries grouped by vendor (the NVIDIA build
// compiles sm_* entries, the AMD build gfx* ones; the library then compares
// the device's own architecture), the generic variants in order, the probes.
// generate_platform_kernels names the files each build then leaves out.
std::string generate_dispatch(const LibrarySpec& library, const std::vector<ExportedKernel>& tuned,
                              const std::vector<ExportedKernel>& generic,
                              const GenericMeasurements* measured);

// The tuned entries' files a platform's build of the library leaves out, as
// the CMake lists kopt_problem_library reads (generated/platforms.cmake,
// beside dispatch.inc): an entry serves the platforms its targets name, as
// in dispatch.inc's sections; one without targets serves both, as do the
// generic variants.
std::string generate_platform_kernels(const std::vector<ExportedKernel>& tuned);

}  // namespace kopt
