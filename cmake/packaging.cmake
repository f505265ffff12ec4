# Installing and packaging (scripts/package builds the .deb): the program, its desktop entry (Applications ▸
# Education / Science), icons, the MIME type of session files (*.attnlab.json, opened by a double click) and the
# manual page attnlab(1), written by the program itself from its command table (app/man_page.h).
include(GNUInstallDirs)

set(ATTNLAB_PACKAGE_DIR ${PROJECT_SOURCE_DIR}/resources/package)
set(ATTNLAB_MAN_PAGE ${CMAKE_BINARY_DIR}/attnlab.1.gz)
# Only for an install or a package: the tests and the program do not need the page.
add_custom_command(OUTPUT ${ATTNLAB_MAN_PAGE}
  COMMAND sh -c "\"$<TARGET_FILE:attnlab>\" --man | gzip -9n > \"${ATTNLAB_MAN_PAGE}\""
  DEPENDS attnlab
  COMMENT "attnlab: manual page attnlab(1)" VERBATIM)
add_custom_target(attnlab_man_page DEPENDS ${ATTNLAB_MAN_PAGE})

install(TARGETS attnlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${ATTNLAB_PACKAGE_DIR}/attnlab.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${ATTNLAB_PACKAGE_DIR}/attnlab-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME attnlab.xml)
install(FILES ${ATTNLAB_PACKAGE_DIR}/attnlab.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(size 16 24 32 48 64 128 256)
  install(FILES ${ATTNLAB_PACKAGE_DIR}/icons/attnlab-${size}.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME attnlab.png)
endforeach()
install(FILES ${ATTNLAB_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL)
# Debian keeps it under the package's own name (CMAKE_INSTALL_DOCDIR would be share/doc/AttentionLab).
install(FILES ${ATTNLAB_PACKAGE_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/attnlab)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Attention Lab developers <attnlab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see inside small transformers, live: attention heads, spectra, predictions")
set(CPACK_PACKAGE_DESCRIPTION
    "Attention Lab runs small transformers and attention variants in real time and draws what happens inside\n"
    "them while the sentence and the parameters are edited: attention heatmaps, head outputs, singular values,\n"
    "rank and rank collapse, the prediction with its attribution, ablation and patching, the head atlas, and\n"
    "lessons for the classroom. GPT-2, BERT, Llama, Mistral, Qwen, SmolLM and Gemma checkpoints open from disk.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # attnlab_VERSION_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the libraries the program links, from dpkg-shlibdeps
# What dpkg-shlibdeps cannot see: the fonts the figures draw CJK text and emoji with (ui/plots/fonts.h).
# libsentencepiece0 (T5's and Marian's SentencePiece models) is named too, though dpkg-shlibdeps finds it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "fonts-dejavu-core, fontconfig, fonts-noto-cjk, fonts-symbola, fonts-noto-color-emoji, libsentencepiece0")
# LAPACK through OpenBLAS's threaded build: the spectra of large maps 10× faster than the reference LAPACK.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0-pthread")
# `import attnlab` (python/, installed under /usr/lib/python3/dist-packages): built for this Python's ABI, its arrays
# are NumPy's.
if(ATTNLAB_PYTHON_FOUND)
  math(EXPR next_minor "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${CPACK_DEBIAN_PACKAGE_RECOMMENDS}, python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${next_minor}), python3-numpy")
endif()
set(CPACK_STRIP_FILES ON)
include(CPack)
