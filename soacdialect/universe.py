"""The `xdsl.universe` entry point: makes `xdsl-opt` see the soac dialects, passes and targets."""

from soac.dialects import get_all_dialects
from soac.passes import get_all_passes
from soac.targets import get_all_targets
from xdsl.universe import Universe

SOAC_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
