# Shared build rules for the userspace tools: each tool lives in its own
# directory with a Makefile that sets PROG, SRCS (and optionally LDLIBS,
# TEST_PROG/TEST_SRCS for host unit tests) and includes this file.
OUT ?= $(CURDIR)/../../build/bin
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDLIBS ?=

.PHONY: all test clean

all: $(OUT)/$(PROG)

$(OUT)/$(PROG): $(SRCS) $(wildcard *.h) Makefile ../common.mk
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ $(SRCS) $(LDLIBS) -pthread

# Host unit tests under ASan/UBSan (no RDMA device needed).
ifneq ($(TEST_SRCS),)
test: $(OUT)/$(TEST_PROG)
	$(OUT)/$(TEST_PROG)

$(OUT)/$(TEST_PROG): $(TEST_SRCS) $(wildcard *.h) Makefile ../common.mk
	@mkdir -p $(OUT)
	$(CC) $(filter-out -O2,$(CFLAGS)) $(SAN_FLAGS) -o $@ $(TEST_SRCS) $(LDLIBS) -pthread
else
test:
	@true
endif

clean:
	rm -f $(OUT)/$(PROG) $(if $(TEST_PROG),$(OUT)/$(TEST_PROG))
