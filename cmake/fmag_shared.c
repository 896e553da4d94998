/* libfmag.so has no code of its own: it is every layer library linked whole
 * (cmake/FMAGInstall.cmake). CMake needs one source file to define the target. */
typedef int fmag_shared_library_has_no_code_of_its_own;
