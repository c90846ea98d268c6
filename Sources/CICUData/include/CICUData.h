// CICUData has no C interface: its one object (ICUData.S) defines ICU's data symbol in the shipping build.
