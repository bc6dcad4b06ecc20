// mlnet-workload: one training step of a real model under a parallel plan as Chakra execution traces, one per
// rank (PREFIX.<rank>.et), for mlnet-check, mlnet-analytical and mlnet-ns3 (and ASTRA-sim). Prints the plan:
// ranks and communicators, FLOPs, bytes per collective type and communicator, the pipeline bubble and the
// memory of each rank; a plan that does not fit in the GPU's memory is an error unless --allow-oom.
// With --from=simai|astra1 FILE it imports a SimAI / AICB or ASTRA-sim 1.0 text workload instead
// (astra-core/workload/importers/) and prints what was imported and what was ignored.
// Exit status: 0 written, 1 usage, 2 invalid model, plan or workload file (or too large), with the option,
// key or line named.
#include <boost/program_options.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "util/atomic-file.h"
#include "util/cli-options.h"
#include "util/memory-limit.h"
#include "util/process-usage.h"
#include "util/tool-main.h"
#include "workload/generator/gpu-spec.h"
#include "workload/generator/model-spec.h"
#include "workload/generator/parallel-plan.h"
#include "workload/generator/step-builder.h"
#include "workload/importers/workload-importer.h"

namespace po = boost::program_options;
using namespace mlnet;
using namespace mlnet::workload;

namespace {

std::string gb(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    return text;
}

std::string joined(const std::vector<std::string>& names) {
    std::string all;
    for (const std::string& n : names) {
        all += (all.empty() ? "" : ", ") + n;
    }
    return all;
}

struct Options {
    std::string model, gpu = "h100", precision, output, recompute = "none", cpComm = "ring", measured;
    ParallelPlan plan;
    bool json = false, gzip = false, allowOom = false, planOnly = false;
};

// The options' numbers through CliNumbers (whole, in range); false with the message printed.
bool readOptions(const po::variables_map& vm, Options& o) {
    CliNumbers n("mlnet-workload");
    auto count = [&](const char* name, uint64_t lo, uint64_t hi, auto& out) {
        if (!vm.count(name)) {
            return true;
        }
        uint64_t v = 0;
        if (!n.count(name, vm[name].as<std::string>(), lo, hi, v)) {
            return false;
        }
        out = static_cast<std::remove_reference_t<decltype(out)>>(v);
        return true;
    };
    ParallelPlan& p = o.plan;
    const bool ok =
        count("gpus", 1, 1u << 20, p.gpus) && count("tp", 1, 1024, p.tp) && count("pp", 1, 1024, p.pp) &&
        count("dp", 1, 1u << 20, p.dp) && count("cp", 1, 1024, p.cp) && count("ep", 1, 1u << 16, p.ep) &&
        count("vpp", 1, 1024, p.vpp) && count("zero", 0, 3, p.zero) &&
        count("global-batch", 1, 1ull << 32, p.globalBatch) &&
        count("micro-batch", 1, 1ull << 20, p.microBatch) && count("seq", 1, 1ull << 30, p.sequence) &&
        count("bucket-params", 1, 1ull << 40, p.bucketParams) && count("steps", 1, 100, p.steps);
    if (!ok) {
        std::cerr << n.error() << "\n";
    }
    return ok;
}

nlohmann::ordered_json memoryJson(const RankMemory& m) {
    return {{"weights_bytes", m.weights},     {"gradients_bytes", m.gradients},
            {"optimizer_bytes", m.optimizer}, {"activations_bytes", m.activations},
            {"other_bytes", m.other},         {"total_bytes", m.total()}};
}

// --from: a SimAI or ASTRA-sim 1.0 text workload, written rank by rank (a rank's bytes are dropped once its
// file is written, so 9,216 ranks need no more memory than one).
int runImport(const po::variables_map& vm) {
    auto usage = [](const std::string& why) {
        std::cerr << "mlnet-workload: " << why << "\nTry 'mlnet-workload --help'.\n";
        return 1;
    };
    const std::string from = vm["from"].as<std::string>();
    if (from != "simai" && from != "astra1") {
        return usage("--from=" + from + ": expected simai or astra1");
    }
    for (const char* generatorOnly : {"model",
                                      "tp",
                                      "pp",
                                      "dp",
                                      "cp",
                                      "ep",
                                      "vpp",
                                      "zero",
                                      "fsdp",
                                      "global-batch",
                                      "micro-batch",
                                      "seq",
                                      "gpu",
                                      "precision",
                                      "recompute",
                                      "cp-comm",
                                      "no-sequence-parallel",
                                      "tp-comm-overlap",
                                      "order",
                                      "bucket-params",
                                      "steps",
                                      "measured-times",
                                      "allow-oom",
                                      "plan-only",
                                      "json"}) {
        if (vm.count(generatorOnly)) {
            return usage(std::string("--") + generatorOnly +
                         " belongs to the model-driven generator; --from takes the plan from the file");
        }
    }
    if (!vm.count("workload-file")) {
        return usage("--from=" + from + " needs the workload file: mlnet-workload --from=" + from +
                     " FILE --output PREFIX");
    }
    const std::string file = vm["workload-file"].as<std::string>();
    const std::string output = vm.count("output") ? vm["output"].as<std::string>() : "";
    if (output.empty()) {
        return usage("--output PREFIX is required");
    }
    if (output.back() == '/' || output.back() == '.') {
        return usage("--output '" + output +
                     "': expected a path prefix such as dir/name (files are name.<rank>.et)");
    }
    importers::ImportOptions options;
    CliNumbers n("mlnet-workload");
    uint64_t value = 0;
    if (vm.count("gpus")) {
        if (!n.count("gpus", vm["gpus"].as<std::string>(), 1, 1u << 24, value)) {
            std::cerr << n.error() << "\n";
            return 1;
        }
        options.gpus = static_cast<uint32_t>(value);
    }
    if (vm.count("passes")) {
        if (!n.count("passes", vm["passes"].as<std::string>(), 1, 1000, value)) {
            std::cerr << n.error() << "\n";
            return 1;
        }
        options.passes = static_cast<uint32_t>(value);
    }
    if (vm.count("dims")) {
        std::string text = vm["dims"].as<std::string>();
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            if (!n.count("dims", text.substr(start, comma - start), 1, 1u << 24, value)) {
                std::cerr << n.error() << " (--dims takes sizes such as 8,4, fastest first)\n";
                return 1;
            }
            options.dims.push_back(static_cast<uint32_t>(value));
            start = comma + 1;
        }
    }
    const bool gzip = vm.count("gzip") > 0;
    const auto format =
        from == "simai" ? importers::WorkloadFormat::SimAI : importers::WorkloadFormat::Astra1;
    Diagnostics diag;
    const double cpuStart = processCpuSeconds();
    const auto wallStart = std::chrono::steady_clock::now();
    std::optional<importers::WorkloadImporter> im =
        importers::importTextWorkload(file, format, format, options, diag);
    std::cerr << diag.format(Severity::Warning);
    if (!im) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    std::error_code error;
    const std::filesystem::path dir = std::filesystem::path(output).parent_path();
    if (!dir.empty() && !std::filesystem::create_directories(dir, error) && error) {
        std::cerr << "mlnet-workload: --output " << output << ": cannot create " << dir.string() << ": "
                  << error.message() << "\n";
        return 2;
    }
    AtomicFileSet files(diag);
    uint64_t nodes = 0, fileBytes = 0;
    for (Rank r = 0; r < im->numRanks() && !diag.hasErrors(); ++r) {
        const RankTraceBuilder trace = im->buildRank(r);
        nodes += trace.nodes().size();
        const std::string path = output + "." + std::to_string(r) + ".et" + (gzip ? ".gz" : "");
        const std::string bytes = trace.fileBytes(path);
        fileBytes += bytes.size();
        files.add(path, bytes);
    }
    if (!diag.hasErrors()) {
        files.commit();
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    std::cout << im->summary();
    std::printf("wrote %u traces %s.<rank>.et%s: %llu nodes, %s, in %.2f s (%.2f CPU-s, peak %.0f MB)\n",
                im->numRanks(), output.c_str(), gzip ? ".gz" : "", (unsigned long long)nodes,
                describeBytes(fileBytes).c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count(),
                processCpuSeconds() - cpuStart, peakResidentMb());
    std::printf(
        "run them with --overlap-collectives: %s runs a rank's collectives concurrently (a non-blocking "
        "one overlaps what follows)\n",
        std::string(importers::toString(format)).c_str());
    return 0;
}

int run(int argc, char** argv) {
    po::options_description options(
        "Usage: mlnet-workload --model NAME|FILE --gpus N [--tp T --pp P --dp D --vpp V --cp C --ep E]\n"
        "         [--zero 0|1|2|3 | --fsdp] [--global-batch B --micro-batch M --seq S] [--gpu h100]\n"
        "         [--precision bf16|fp8] [--recompute none|selective|full] --output PREFIX\n"
        "       mlnet-workload --from=simai|astra1 FILE --output PREFIX [--gpus N] [--dims A,B,...] "
        "[--passes N]\n"
        "Writes one training step as Chakra traces PREFIX.<rank>.et and prints the plan; with --from, "
        "imports a\n"
        "SimAI / AICB or ASTRA-sim 1.0 text workload (--gpus: the GPU count when the file has no all_gpus:;\n"
        "--dims: ASTRA-sim 1.0's logical dimensions, fastest first; --passes: its --num-passes).\n\nOptions");
    options.add_options()("help,h", "print this help")  //
        ("model", po::value<std::string>(),
         ("a preset (" + joined(modelPresetNames()) + ") or a JSON/YAML model file (keys in model-spec.h)")
             .c_str())                                                                       //
        ("gpus", po::value<std::string>(), "GPUs (ranks)")                                   //
        ("tp", po::value<std::string>(), "tensor-parallel size (default 1)")                 //
        ("pp", po::value<std::string>(), "pipeline stages (default 1)")                      //
        ("dp", po::value<std::string>(), "data-parallel size (default: gpus / (tp cp pp))")  //
        ("vpp", po::value<std::string>(),
         "virtual stages per pipeline rank (interleaved 1F1B; default 1)")                         //
        ("cp", po::value<std::string>(), "context-parallel size (default 1)")                      //
        ("ep", po::value<std::string>(), "expert-parallel size, carved from dp x cp (default 1)")  //
        ("zero", po::value<std::string>(),
         "ZeRO stage 0..3 (default 1: Megatron's distributed optimizer)")                            //
        ("fsdp", "fully sharded data parallelism: ZeRO-3")                                           //
        ("global-batch", po::value<std::string>(), "sequences per step (default micro-batch x dp)")  //
        ("micro-batch", po::value<std::string>(), "sequences per micro-batch (default 1)")           //
        ("seq", po::value<std::string>(), "sequence length (default: the model's)")                  //
        ("gpu", po::value<std::string>(),
         ("GPU type: " + joined(gpuPresetNames()) + " (default h100)").c_str())                         //
        ("precision", po::value<std::string>(), "GEMMs in bf16 or fp8 (default: the model's)")          //
        ("recompute", po::value<std::string>(), "activation recomputation: none, selective or full")    //
        ("cp-comm", po::value<std::string>(), "context parallelism's K/V exchange: ring or allgather")  //
        ("no-sequence-parallel",
         "TP without sequence parallelism (all-reduces instead of all-gather + reduce-scatter)")  //
        ("tp-comm-overlap",
         "overlap the sequence-parallel all-gather / reduce-scatter with their GEMMs "
         "(Transformer Engine)")                                                                           //
        ("order", po::value<std::string>(), "rank order, fastest first (default tp-cp-ep-dp-pp)")          //
        ("bucket-params", po::value<std::string>(), "parameters per gradient bucket (default 40000000)")   //
        ("steps", po::value<std::string>(), "training steps (default 1)")                                  //
        ("measured-times", po::value<std::string>(), "CSV of measured kernel times (op,phase,time_us)")    //
        ("allow-oom", "write the traces even if a rank's memory exceeds the GPU's")                        //
        ("plan-only", "print the plan, write nothing")                                                     //
        ("json", "print the plan as one JSON object")                                                      //
        ("gzip", "write PREFIX.<rank>.et.gz")                                                              //
        ("output", po::value<std::string>(), "path prefix of the trace files; directories are created")    //
        ("from", po::value<std::string>(), "import FILE: simai (SimAI / AICB) or astra1 (ASTRA-sim 1.0)")  //
        ("dims", po::value<std::string>(), "with --from: logical dimensions, fastest first (e.g. 8,4)")    //
        ("passes", po::value<std::string>(), "with --from: training passes (default 1)");
    po::options_description hidden;
    hidden.add_options()("workload-file", po::value<std::string>());
    po::options_description all;
    all.add(options).add(hidden);
    po::variables_map vm;
    try {
        po::positional_options_description positionals;
        positionals.add("workload-file", 1);
        po::store(po::command_line_parser(argc, argv).options(all).positional(positionals).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "mlnet-workload: " << e.what() << "\nTry 'mlnet-workload --help'.\n";
        return 1;
    }
    if (vm.count("help")) {
        std::cout << options;
        return 0;
    }
    if (vm.count("from")) {
        return runImport(vm);
    }
    for (const char* importOnly : {"workload-file", "dims", "passes"}) {
        if (vm.count(importOnly)) {
            std::cerr << "mlnet-workload: "
                      << (std::string(importOnly) == "workload-file"
                              ? "'" + vm["workload-file"].as<std::string>() +
                                    "': a file is taken only with --from"
                              : std::string("--") + importOnly + " is taken only with --from")
                      << "\nTry 'mlnet-workload --help'.\n";
            return 1;
        }
    }
    Options o;
    auto text = [&](const char* name, std::string& out) {
        if (vm.count(name)) {
            out = vm[name].as<std::string>();
        }
    };
    text("model", o.model);
    text("gpu", o.gpu);
    text("precision", o.precision);
    text("output", o.output);
    text("recompute", o.recompute);
    text("cp-comm", o.cpComm);
    text("measured-times", o.measured);
    text("order", o.plan.order);
    o.json = vm.count("json") > 0;
    o.gzip = vm.count("gzip") > 0;
    o.allowOom = vm.count("allow-oom") > 0;
    o.planOnly = vm.count("plan-only") > 0;
    if (!readOptions(vm, o)) {
        return 1;
    }
    if (vm.count("fsdp")) {
        o.plan.zero = 3;
    }
    o.plan.sequenceParallel = vm.count("no-sequence-parallel") == 0;
    o.plan.tpCommOverlap = vm.count("tp-comm-overlap") > 0;
    auto usage = [](const std::string& why) {
        std::cerr << "mlnet-workload: " << why << "\nTry 'mlnet-workload --help'.\n";
        return 1;
    };
    if (o.model.empty() || o.plan.gpus == 0) {
        return usage("--model and --gpus are required");
    }
    if (o.output.empty() && !o.planOnly) {
        return usage("--output PREFIX is required (or --plan-only)");
    }
    if (!o.output.empty() && (o.output.back() == '/' || o.output.back() == '.')) {
        return usage("--output '" + o.output +
                     "': expected a path prefix such as dir/name (files are name.<rank>.et)");
    }
    if (o.recompute != "none" && o.recompute != "selective" && o.recompute != "full") {
        return usage("--recompute=" + o.recompute + ": expected none, selective or full");
    }
    o.plan.recompute = o.recompute == "full"        ? Recompute::Full
                       : o.recompute == "selective" ? Recompute::Selective
                                                    : Recompute::None;
    if (o.cpComm != "ring" && o.cpComm != "allgather") {
        return usage("--cp-comm=" + o.cpComm + ": expected ring or allgather");
    }
    o.plan.cpComm = o.cpComm == "ring" ? CpComm::Ring : CpComm::AllGather;
    const std::optional<GpuSpec> gpu = gpuPreset(o.gpu);
    if (!gpu) {
        return usage("--gpu=" + o.gpu + ": expected one of " + joined(gpuPresetNames()));
    }

    Diagnostics diag;
    std::optional<ModelSpec> model = loadModel(o.model, diag);
    if (model && !o.precision.empty()) {
        if (o.precision != "bf16" && o.precision != "fp8") {
            return usage("--precision=" + o.precision + ": expected bf16 or fp8");
        }
        model->precision = o.precision == "fp8" ? Precision::Fp8 : Precision::Bf16;
    }
    MeasuredTimes measured;
    if (!o.measured.empty()) {
        measured.load(o.measured, diag);
    }
    if (model) {
        resolvePlan(*model, o.plan, diag);
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    const ParallelPlan& plan = o.plan;
    const double cpuStart = processCpuSeconds();
    const auto wallStart = std::chrono::steady_clock::now();
    StepBuilder builder(*model, plan, *gpu, measured.empty() ? nullptr : &measured);

    // Memory: the busiest rank of each pipeline stage (stages differ; ranks of a stage do not).
    std::vector<RankMemory> memory;
    RankMemory peak;
    uint32_t peakRank = 0;
    for (Rank r = 0; r < plan.gpus; ++r) {
        const RankCoords c = builder.layout().coords(r);
        if (c.tp == 0 && c.cp == 0 && c.dp == 0) {
            memory.push_back(builder.memoryOf(r));
            if (memory.back().total() > peak.total()) {
                peak = memory.back();
                peakRank = r;
            }
        }
    }
    const bool fits = peak.total() <= gpu->memoryBytes;

    StepStats stats;
    uint64_t nodes = 0, fileBytes = 0;
    const bool write = !o.planOnly && (fits || o.allowOom);
    AtomicFileSet files(diag);
    if (write) {
        std::error_code error;
        const std::filesystem::path dir = std::filesystem::path(o.output).parent_path();
        if (!dir.empty() && !std::filesystem::create_directories(dir, error) && error) {
            std::cerr << "mlnet-workload: --output " << o.output << ": cannot create " << dir.string() << ": "
                      << error.message() << "\n";
            return 2;
        }
    }
    for (Rank r = 0; r < plan.gpus && !diag.hasErrors(); ++r) {
        RankTraceBuilder trace = builder.buildRank(r, &stats);
        nodes += trace.nodes().size();
        if (write) {
            const std::string path = o.output + "." + std::to_string(r) + ".et" + (o.gzip ? ".gz" : "");
            const std::string bytes = trace.fileBytes(path);
            fileBytes += bytes.size();
            files.add(path, bytes);
        }
    }
    if (write && !diag.hasErrors()) {
        files.commit();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const uint64_t micro = plan.gradientAccumulation();
    stats.bubbleFraction = plan.pp > 1 ? double(plan.pp - 1) / double(micro * plan.vpp + plan.pp - 1) : 0;
    const double tokens = double(plan.globalBatch) * double(plan.sequence) * plan.steps;
    const double peakFlops =
        model->precision == Precision::Fp8 && gpu->fp8FlopsPerS > 0 ? gpu->fp8FlopsPerS : gpu->bf16FlopsPerS;

    if (o.json) {
        nlohmann::ordered_json j;
        j["model"] = {{"name", model->name},
                      {"parameters", model->totalParams()},
                      {"active_parameters_per_token", model->activeParamsPerToken()},
                      {"precision", model->precision == Precision::Fp8 ? "fp8" : "bf16"}};
        j["plan"] = {{"gpus", plan.gpus},
                     {"tp", plan.tp},
                     {"pp", plan.pp},
                     {"dp", plan.dp},
                     {"cp", plan.cp},
                     {"ep", plan.ep},
                     {"vpp", plan.vpp},
                     {"zero", plan.zero},
                     {"sequence_parallel", plan.sequenceParallel},
                     {"tp_comm_overlap", plan.tpCommOverlap},
                     {"global_batch", plan.globalBatch},
                     {"micro_batch", plan.microBatch},
                     {"gradient_accumulation", micro},
                     {"sequence", plan.sequence},
                     {"order", plan.order},
                     {"gpu", gpu->name}};
        nlohmann::ordered_json groups = nlohmann::ordered_json::object();
        for (const Communicator& g : builder.layout().communicators()) {
            nlohmann::ordered_json& kind = groups[g.kind];
            kind["count"] = (kind.contains("count") ? kind["count"].get<uint64_t>() : 0) + 1;
            kind["size"] = g.ranks.size();
        }
        j["communicators"] = groups;
        j["step"] = {{"tokens", tokens},
                     {"model_flops", stats.modelFlops},
                     {"executed_flops", stats.executedFlops},
                     {"busiest_rank_compute_s", stats.computeMicrosMax / 1e6 / plan.steps},
                     {"pipeline_bubble", stats.bubbleFraction}};
        nlohmann::ordered_json comm = nlohmann::ordered_json::object();
        for (const auto& [key, bytes] : stats.commBytes) {
            comm[key] = {{"bytes", bytes}, {"count", stats.commCount[key]}};
        }
        j["communication"] = comm;
        j["memory_peak_rank"] = peakRank;
        j["memory"] = memoryJson(peak);
        j["memory_fits"] = fits;
        j["gpu_memory_bytes"] = gpu->memoryBytes;
        j["traces"] = {{"written", write},
                       {"nodes", nodes},
                       {"bytes", fileBytes},
                       {"seconds", seconds},
                       {"cpu_seconds", processCpuSeconds() - cpuStart},
                       {"peak_mb", peakResidentMb()}};
        std::cout << j.dump(1) << "\n";
    } else {
        std::printf("model: %s, %.2f B parameters (%.2f B per token), %s GEMMs\n", model->name.c_str(),
                    double(model->totalParams()) / 1e9, double(model->activeParamsPerToken()) / 1e9,
                    model->precision == Precision::Fp8 ? "fp8" : "bf16");
        std::printf(
            "plan: %u GPUs (%s) = tp %u x cp %u x pp %u x dp %u; vpp %u, ep %u, %s, ZeRO-%u, order %s\n",
            plan.gpus, gpu->name.c_str(), plan.tp, plan.cp, plan.pp, plan.dp, plan.vpp, plan.ep,
            plan.sequenceParallel ? "sequence parallel" : "no sequence parallelism", plan.zero,
            plan.order.c_str());
        std::printf(
            "batch: %llu sequences of %llu tokens = micro-batch %llu x dp %u x %llu accumulation steps\n",
            (unsigned long long)plan.globalBatch, (unsigned long long)plan.sequence,
            (unsigned long long)plan.microBatch, plan.dp, (unsigned long long)micro);
        std::string groups;
        std::map<std::string, std::pair<uint64_t, uint64_t>> byKind;
        for (const Communicator& g : builder.layout().communicators()) {
            byKind[g.kind].first += 1;
            byKind[g.kind].second = g.ranks.size();
        }
        for (const auto& [kind, n] : byKind) {
            groups += (groups.empty() ? "" : ", ") + std::to_string(n.first) + " " + kind + " of " +
                      std::to_string(n.second);
        }
        std::printf("communicators: %s\n", groups.empty() ? "none" : groups.c_str());
        std::printf(
            "step: %.3g model FLOPs (%.3g per GPU), %.3g executed; busiest rank's kernels %.3f s "
            "(%s roofline), pipeline bubble %.1f %%\n",
            stats.modelFlops / plan.steps, stats.modelFlops / plan.steps / plan.gpus,
            stats.executedFlops / plan.steps, stats.computeMicrosMax / 1e6 / plan.steps, gpu->name.c_str(),
            100 * stats.bubbleFraction);
        std::printf("  compute-bound step time >= %.3f s, MFU <= %.1f %% of the %s peak\n",
                    stats.computeMicrosMax / 1e6 / plan.steps / (1 - stats.bubbleFraction),
                    100 * stats.modelFlops / plan.steps / plan.gpus /
                        (stats.computeMicrosMax / 1e6 / plan.steps / (1 - stats.bubbleFraction)) / peakFlops,
                    model->precision == Precision::Fp8 ? "fp8" : "bf16");
        std::printf("communication per step (all ranks):\n");
        for (const auto& [key, bytes] : stats.commBytes) {
            std::printf("  %-26s %12s in %llu operations\n", key.c_str(),
                        gb(double(bytes) / plan.steps).c_str(),
                        (unsigned long long)(stats.commCount[key] / plan.steps));
        }
        std::printf(
            "memory, rank %u (the fullest): weights %s, gradients %s, optimizer %s, activations %s, "
            "other %s = %s of %s\n",
            peakRank, gb(peak.weights).c_str(), gb(peak.gradients).c_str(), gb(peak.optimizer).c_str(),
            gb(peak.activations).c_str(), gb(peak.other).c_str(), gb(peak.total()).c_str(),
            gb(gpu->memoryBytes).c_str());
        if (write) {
            std::printf("wrote %u traces %s.<rank>.et%s: %llu nodes, %s, in %.2f s (peak %.0f MB)\n",
                        plan.gpus, o.output.c_str(), o.gzip ? ".gz" : "", (unsigned long long)nodes,
                        gb(fileBytes).c_str(), seconds, peakResidentMb());
            std::printf(
                "run them with --overlap-collectives: NCCL runs TP, DP and EP collectives on streams of "
                "their own\n");
        }
    }
    if (diag.hasErrors()) {
        std::cerr << diag.format(Severity::Error);
        return 2;
    }
    if (!fits && !o.allowOom) {
        std::cerr << "mlnet-workload: the plan does not fit: rank " << peakRank << " needs "
                  << gb(peak.total()) << " (weights " << gb(peak.weights) << ", gradients "
                  << gb(peak.gradients) << ", optimizer " << gb(peak.optimizer) << ", activations "
                  << gb(peak.activations) << ", other " << gb(peak.other) << ") of the " << gpu->name << "'s "
                  << gb(gpu->memoryBytes)
                  << "; expected more model or data sharding (--tp, --pp, --zero), recomputation, a smaller "
                     "micro-batch, or --allow-oom\n";
        return 2;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return mlnet::runTool("mlnet-workload", [&] { return run(argc, argv); });
}
