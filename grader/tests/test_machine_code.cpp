// [block-order] reads kernels' machine code: cuobjdump's listing split by kernel, and whether a
// kernel reads its block's index and can watch other blocks. The listing below holds lines the
// H100's cuobjdump -sass printed for lab 06's kernels (names shortened).
#include <doctest/doctest.h>

#include <string>

#include "audit/command_output.h"
#include "audit/machine_code.h"

using namespace workbook;

namespace {
const char* const kListing = R"listing(
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

	code for sm_90
		Function : _Z16by_counter_scanPKjPjmPy
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                   /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;                                       /* 0x0000000000007919 */
        /*0020*/                   S2UR UR4, SR_CgaCtaId ;                                  /* 0x00000000000479c3 */
        /*0030*/                   S2R R3, SR_NCTAID.X ;                                    /* 0x0000000000037919 */
        /*0040*/                   ATOMG.E.ADD.STRONG.GPU PT, R5, desc[UR6][R2.64], R4 ;    /* 0x000000040205798a */
        /*1190*/                   LDG.E.64.STRONG.SYS R22, desc[UR6][R28.64] ;             /* 0x000000061c167981 */
		..........

		Function : _Z19by_block_index_scanPKjPjmPy
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0040*/                   S2UR UR6, SR_CTAID.X ;                                   /* 0x00000000000679c3 */
        /*1090*/                   ATOMG.E.EXCH.64.STRONG.GPU PT, RZ, desc[UR6][R22.64], R20 ;  /* 0x0000001416ff79a8 */
        /*1190*/                   LDG.E.64.STRONG.SYS R22, desc[UR6][R28.64] ;             /* 0x000000061c167981 */
		..........

		Function : _Z18scan_naive_kernelPKjPjmS1_
        /*0010*/                   S2R R9, SR_CTAID.X ;                                     /* 0x0000000000097919 */
        /*0080*/                   LDG.E R5, desc[UR4][R2.64] ;                             /* 0x0000000402057981 */
        /*0300*/               @P0 REDG.E.ADD.STRONG.GPU desc[UR8][R4.64], R6 ;             /* 0x000000060400098e */
        /*0e80*/                   MEMBAR.SC.CTA ;                                          /* 0x0000000000007992 */
		..........

		Function : _Z7clusterv
        /*0000*/                   S2R R2, SR_CLUSTERID.X ;
)listing";
}  // namespace

// A kernel's name reaches cuobjdump as one word of a shell command (machine_code.cpp), and the
// student chooses it: quoted, whatever it holds comes back unchanged and runs nothing.
TEST_CASE("a shell-quoted word reaches the command whole, quotes and substitutions included") {
  for (const std::string& word : {std::string("_Z11copy_kernelPKfPfm"), std::string("it's"), std::string("a b"),
                                  std::string("$(touch /tmp/workbook_quote_test)"), std::string("`id`;'\"\\")})
    CHECK(command_output("printf %s " + shell_quoted(word)) == word);
}

TEST_CASE("cuobjdump's listing is split by kernel, under the mangled names cudaFuncGetName gives") {
  const auto kernels = sass_by_kernel(kListing);
  REQUIRE(kernels.size() == 4);
  REQUIRE(kernels.contains("_Z16by_counter_scanPKjPjmPy"));
  CHECK(kernels.at("_Z16by_counter_scanPKjPjmPy").find("ATOMG.E.ADD") != std::string::npos);
  CHECK(kernels.at("_Z16by_counter_scanPKjPjmPy").find("SR_CTAID.X") == std::string::npos);
  CHECK(kernels.at("_Z19by_block_index_scanPKjPjmPy").find("SR_CTAID.X") != std::string::npos);
  CHECK(sass_by_kernel("no kernels here\n").empty());
}

TEST_CASE("a kernel's SASS reads the same dumped with its whole file as dumped alone") {
  // cuobjdump pads each listing's columns to its own widest line (seen on an H100's toolkit: every
  // kernel of lab 04's solution, its lines equal but for the spaces before the encoding comment),
  // and a whole file's dump puts the next architecture's headers after a kernel's last instruction.
  const char* alone =
      "\t\tFunction : _Z4copyPfS_\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                          /* 0x00000a00ff017b82 */\n"
      "        /*0010*/                   S2R R0, SR_CTAID.X ;                            /* 0x0000000000007919 */\n";
  const char* in_the_whole_file =
      "\t\tFunction : _Z4copyPfS_\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                                       /* "
      "0x00000a00ff017b82 */\n"
      "        /*0010*/                   S2R R0, SR_CTAID.X ;                                         /* "
      "0x0000000000007919 */\n"
      "\t\t..........\n\n\nFatbin elf code:\n================\narch = sm_90a\ncode version = [1,8]\n"
      "\t\tFunction : _Z5otherv\n"
      "        /*0000*/                   EXIT ;                                                       /* "
      "0x000000000000794d */\n";
  const auto one = sass_by_kernel(alone), all = sass_by_kernel(in_the_whole_file);
  REQUIRE(one.contains("_Z4copyPfS_"));
  REQUIRE(all.contains("_Z4copyPfS_"));
  CHECK(one.at("_Z4copyPfS_") == all.at("_Z4copyPfS_"));
  CHECK(one.at("_Z4copyPfS_") ==
        "/*0000*/ LDC R1, c[0x0][0x28] ; /* 0x00000a00ff017b82 */\n"
        "/*0010*/ S2R R0, SR_CTAID.X ; /* 0x0000000000007919 */\n");
}

TEST_CASE("a kernel reads its block's index through SR_CTAID or a cluster's index, not through gridDim or its rank") {
  const auto kernels = sass_by_kernel(kListing);
  CHECK_FALSE(reads_block_index(kernels.at("_Z16by_counter_scanPKjPjmPy")));  // SR_NCTAID, SR_CgaCtaId only
  CHECK(reads_block_index(kernels.at("_Z19by_block_index_scanPKjPjmPy")));
  CHECK(reads_block_index(kernels.at("_Z18scan_naive_kernelPKjPjmS1_")));
  CHECK(reads_block_index(kernels.at("_Z7clusterv")));
  CHECK(reads_block_index("S2R R7, SR_CTAID.Z ;"));
  CHECK_FALSE(reads_block_index("S2R R7, SR_NCTAID.Y ;"));
  CHECK_FALSE(reads_block_index(""));
}

TEST_CASE(
    "a kernel that can wait for another block loads at GPU or system scope, atomically, or after a GPU-wide fence") {
  const auto kernels = sass_by_kernel(kListing);
  CHECK(watches_other_blocks(kernels.at("_Z16by_counter_scanPKjPjmPy")));
  CHECK(watches_other_blocks(kernels.at("_Z19by_block_index_scanPKjPjmPy")));
  // Plain loads, an atomic add that returns nothing, a fence within the block: it cannot wait.
  CHECK_FALSE(watches_other_blocks(kernels.at("_Z18scan_naive_kernelPKjPjmS1_")));
  CHECK(watches_other_blocks("LDG.E.STRONG.GPU R4, desc[UR4][R2.64] ;"));
  CHECK(watches_other_blocks("ATOM.E.CAS.STRONG.GPU PT, R3, [R4.64], R2, R5 ;"));
  CHECK(watches_other_blocks("MEMBAR.SC.GPU ;"));
  CHECK(watches_other_blocks("MEMBAR.ALL.SYS ;"));
  // Loads that read past L1 without a strong order: cp.async, the copy engine, ld.cg, and
  // plain loads after an L1 invalidation.
  CHECK(watches_other_blocks("LDGSTS.E.BYPASS.128 [R5], desc[UR6][R2.64] ;"));
  CHECK(watches_other_blocks("LDGSTS.E [R5+0x10], desc[UR6][R2.64+0x10] ;"));
  CHECK(watches_other_blocks("UBLKCP.S.G [UR8], [UR4], UR10 ;"));
  CHECK(watches_other_blocks("UTMALDG.2D [UR8], [UR4] ;"));
  CHECK(watches_other_blocks("LDG.E.BYPASS.64 R4, desc[UR4][R2.64] ;"));
  CHECK(watches_other_blocks("CCTL.IVALL ;"));
  CHECK_FALSE(watches_other_blocks("LDG.E.128 R4, desc[UR4][R2.64] ;"));
  CHECK_FALSE(
      watches_other_blocks("STG.E.64.STRONG.GPU desc[UR4][R2.64], R6 ;"));  // a store publishes, it does not watch
  CHECK_FALSE(watches_other_blocks("ATOMS.ADD R3, [R2], R4 ;"));            // shared memory
  CHECK_FALSE(watches_other_blocks("LDG.E.STRONG.CTA R4, desc[UR4][R2.64] ;"));
  CHECK_FALSE(watches_other_blocks("LDG.E.CONSTANT R4, desc[UR4][R2.64] ;"));
}

TEST_CASE("mangled names demangle for the messages, and anything else is kept as given") {
  CHECK(demangled("_Z19by_block_index_scanPKjPjmPy") ==
        "by_block_index_scan(unsigned int const*, unsigned int*, unsigned long, unsigned long long*)");
  CHECK(demangled("not mangled") == "not mangled");
}

// [stage-reuse] follows a kernel's control flow from each copy-engine store to the next load into
// shared memory. The two listings hold the lines the H100's cuobjdump -sass printed for lab 02's
// kernels that branch, copy, wait or are branched to (the rest left out): the solution's ring, which
// waits for its stores to read a stage before loading it again (DEPBAR.LE SB0, 0x1 at 0x09f0), and
// the mutant stage_reused_before_read's, which waits only once, at the end.
namespace {
const char* const kRingThatWaits = R"listing(
        /*0130*/  @P0 BRA 0x280 ;
        /*0190*/  IMAD.SHL.U32 R8, R11, 0x4, RZ ;
        /*0270*/  @!P0 BRA 0x190 ;
        /*0280*/  BSYNC B0 ;
        /*02d0*/  @P0 EXIT ;
        /*03b0*/  SYNCS.EXCH.64 URZ, [UR8+0x20000], UR4 ;
        /*03d0*/  SYNCS.EXCH.64 URZ, [UR8+0x20008], UR4 ;
        /*03e0*/  SYNCS.EXCH.64 URZ, [UR8+0x20010], UR4 ;
        /*03f0*/  SYNCS.EXCH.64 URZ, [UR8+0x20018], UR4 ;
        /*0400*/  @!P0 BRA 0x460 ;
        /*0450*/  BRA 0x5b0 ;
        /*0460*/  I2F.U32.RP R0, UR11 ;
        /*05b0*/  UISETP.GE.U32.AND UP0, UPT, UR6, UR11, UPT ;
        /*05f0*/  @!P0 BRA 0xbb0 ;
        /*0660*/  SYNCS.ARRIVE.TRANS64 RZ, [UR9], R0 ;
        /*0690*/  @P0 ELECT P1, URZ, PT ;
        /*06a0*/  UBLKCP.S.G [UR8], [UR4], UR6 ;
        /*06d0*/  @P0 BRA.U.ANY 0x690 ;
        /*0780*/  @!P0 BRA P1, 0x660 ;
        /*0800*/  USHF.R.U32.HI UR6, URZ, 0x2, UR4 ;
        /*08d0*/  SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R5+UR21+0x20000], R0 ;
        /*0930*/  @!P0 BRA 0xbe0 ;
        /*0940*/  UIADD3.X UR22, URZ, UR5, URZ, UP1, !UPT ;
        /*0960*/  UBLKCP.G.S [UR6], [UR14], UR23 ;
        /*09c0*/  @P0 BRA 0xb50 ;
        /*09f0*/  DEPBAR.LE SB0, 0x1 ;
        /*0a80*/  SYNCS.ARRIVE.TRANS64 RZ, [R5+UR21+0x20000], R0 ;
        /*0b00*/  @P0 ELECT P1, URZ, PT ;
        /*0b10*/  UBLKCP.S.G [UR6], [UR22], UR12 ;
        /*0b40*/  @P0 BRA.U.ANY 0xb00 ;
        /*0b50*/  UIADD3 UR4, UP0, UR4, 0x1, URZ ;
        /*0ba0*/  @!P0 BRA 0x800 ;
        /*0bb0*/  DEPBAR.LE SB0, 0x0 ;
        /*0bd0*/  EXIT ;
        /*0be0*/  SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R5+UR21+0x20000], R0 ;
        /*0bf0*/  @!P0 BRA 0xbe0 ;
        /*0c00*/  BRA 0x940 ;
        /*1040*/  BRA 0x1040;
)listing";
const char* const kRingThatDoesNotWait = R"listing(
        /*0110*/  @P0 BRA 0x260 ;
        /*0170*/  IMAD.SHL.U32 R6, R9, 0x4, RZ ;
        /*0250*/  @!P0 BRA 0x170 ;
        /*0260*/  BSYNC B0 ;
        /*0270*/  @P1 EXIT ;
        /*0380*/  SYNCS.EXCH.64 URZ, [UR8+0x20000], UR4 ;
        /*0390*/  SYNCS.EXCH.64 URZ, [UR8+0x20008], UR4 ;
        /*03a0*/  SYNCS.EXCH.64 URZ, [UR8+0x20010], UR4 ;
        /*03b0*/  SYNCS.EXCH.64 URZ, [UR8+0x20018], UR4 ;
        /*03d0*/  @!P0 BRA 0x5e0 ;
        /*0430*/  @!P0 BRA 0x490 ;
        /*0480*/  BRA 0x5e0 ;
        /*0490*/  I2F.U32.RP R0, UR7 ;
        /*05e0*/  ISETP.NE.U32.AND P0, PT, R2, RZ, PT ;
        /*0600*/  @!P0 BRA 0xb30 ;
        /*0680*/  SYNCS.ARRIVE.TRANS64 RZ, [UR9], R0 ;
        /*06b0*/  @P0 ELECT P1, URZ, PT ;
        /*06c0*/  UBLKCP.S.G [UR8], [UR4], UR7 ;
        /*06f0*/  @P0 BRA.U.ANY 0x6b0 ;
        /*0790*/  @!P0 BRA P1, 0x680 ;
        /*0810*/  USHF.R.U32.HI UR7, URZ, 0x2, UR4 ;
        /*08d0*/  SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R5+UR18+0x20000], R0 ;
        /*0920*/  @!P0 BRA 0xb60 ;
        /*0930*/  UIADD3 UR15, UP0, UR4, 0x4, URZ ;
        /*0940*/  UBLKCP.G.S [UR10], [UR16], UR17 ;
        /*09a0*/  @P0 BRA 0xad0 ;
        /*0a50*/  SYNCS.ARRIVE.TRANS64 RZ, [R5+UR18+0x20000], R0 ;
        /*0a80*/  @P0 ELECT P1, URZ, PT ;
        /*0a90*/  UBLKCP.S.G [UR16], [UR14], UR7 ;
        /*0ac0*/  @P0 BRA.U.ANY 0xa80 ;
        /*0ad0*/  UIADD3 UR4, UP0, UR4, 0x1, URZ ;
        /*0b20*/  @!P0 BRA 0x810 ;
        /*0b30*/  DEPBAR.LE SB0, 0x0 ;
        /*0b50*/  EXIT ;
        /*0b60*/  SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R5+UR18+0x20000], R0 ;
        /*0b70*/  @!P0 BRA 0xb60 ;
        /*0b80*/  BRA 0x930 ;
        /*0fc0*/  BRA 0xfc0;
)listing";
}  // namespace

TEST_CASE("stage-reuse: a ring that waits for its stores to read a stage passes; one that does not is found") {
  CHECK(store_to_load_without_wait(kRingThatWaits).empty());
  const std::string found = store_to_load_without_wait(kRingThatDoesNotWait);
  CHECK(found.find("the bulk store at 0x0940 (UBLKCP.G.S) reaches the bulk load at 0x0a90 (UBLKCP.S.G)") !=
        std::string::npos);
}

TEST_CASE("stage-reuse: the path may run around a loop, and a wait on it breaks it") {
  // Load at the loop's top, store at its bottom, branch back: the store reaches the next load.
  const std::string loop = R"listing(
        /*0100*/  UBLKCP.S.G [UR8], [UR4], UR7 ;
        /*0110*/  SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R5+UR18], R0 ;
        /*0120*/  UBLKCP.G.S [UR10], [UR16], UR17 ;
        /*0130*/  @P1 BRA 0x100 ;
        /*0140*/  EXIT ;
)listing";
  CHECK(store_to_load_without_wait(loop).find("store at 0x0120") != std::string::npos);
  std::string waits = loop;
  waits.replace(waits.find("        /*0130*/"), 0, "        /*012c*/  DEPBAR.LE SB0, 0x0 ;\n");
  CHECK(store_to_load_without_wait(waits).empty());
  // An unconditional exit ends every path; a branch that is always taken does not fall through.
  CHECK(store_to_load_without_wait("        /*0000*/  UBLKCP.G.S [UR1], [UR2], UR3 ;\n        /*0010*/  EXIT ;\n"
                                   "        /*0020*/  UBLKCP.S.G [UR1], [UR2], UR3 ;\n")
            .empty());
  CHECK(store_to_load_without_wait("        /*0000*/  UBLKCP.G.S [UR1], [UR2], UR3 ;\n        /*0010*/  @P0 EXIT ;\n"
                                   "        /*0020*/  UBLKCP.S.G [UR1], [UR2], UR3 ;\n")
            .find("load at 0x0020") != std::string::npos);
  // No copy engine, nothing to find.
  CHECK(store_to_load_without_wait("        /*0000*/  LDG.E.128 R4, desc[UR4][R2.64] ;\n").empty());
}
