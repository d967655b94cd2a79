// [block-order] reads kernels' machine code: cuobjdump's listing split by kernel, and whether a
// kernel reads its block's index and can watch other blocks. The listing below holds lines the
// H100's cuobjdump -sass printed for lab 06's kernels (names shortened).
#include <doctest/doctest.h>

#include <string>

#include "machine_code.h"

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

TEST_CASE("cuobjdump's listing is split by kernel, under the mangled names cudaFuncGetName gives") {
  const auto kernels = sass_by_kernel(kListing);
  REQUIRE(kernels.size() == 4);
  REQUIRE(kernels.contains("_Z16by_counter_scanPKjPjmPy"));
  CHECK(kernels.at("_Z16by_counter_scanPKjPjmPy").find("ATOMG.E.ADD") != std::string::npos);
  CHECK(kernels.at("_Z16by_counter_scanPKjPjmPy").find("SR_CTAID.X") == std::string::npos);
  CHECK(kernels.at("_Z19by_block_index_scanPKjPjmPy").find("SR_CTAID.X") != std::string::npos);
  CHECK(sass_by_kernel("no kernels here\n").empty());
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

TEST_CASE("a kernel that can wait for another block loads at GPU or system scope, atomically, or after a GPU-wide fence") {
  const auto kernels = sass_by_kernel(kListing);
  CHECK(watches_other_blocks(kernels.at("_Z16by_counter_scanPKjPjmPy")));
  CHECK(watches_other_blocks(kernels.at("_Z19by_block_index_scanPKjPjmPy")));
  // Plain loads, an atomic add that returns nothing, a fence within the block: it cannot wait.
  CHECK_FALSE(watches_other_blocks(kernels.at("_Z18scan_naive_kernelPKjPjmS1_")));
  CHECK(watches_other_blocks("LDG.E.STRONG.GPU R4, desc[UR4][R2.64] ;"));
  CHECK(watches_other_blocks("ATOM.E.CAS.STRONG.GPU PT, R3, [R4.64], R2, R5 ;"));
  CHECK(watches_other_blocks("MEMBAR.SC.GPU ;"));
  CHECK(watches_other_blocks("MEMBAR.ALL.SYS ;"));
  CHECK_FALSE(watches_other_blocks("ATOMS.ADD R3, [R2], R4 ;"));  // shared memory
  CHECK_FALSE(watches_other_blocks("LDG.E.STRONG.CTA R4, desc[UR4][R2.64] ;"));
  CHECK_FALSE(watches_other_blocks("LDG.E.CONSTANT R4, desc[UR4][R2.64] ;"));
}

TEST_CASE("mangled names demangle for the messages, and anything else is kept as given") {
  CHECK(demangled("_Z19by_block_index_scanPKjPjmPy") ==
        "by_block_index_scan(unsigned int const*, unsigned int*, unsigned long, unsigned long long*)");
  CHECK(demangled("not mangled") == "not mangled");
}
