"""The attributes of the `soac` dialect: the level of a segmented op, a stencil's boundary condition, and where a
threshold's default comes from."""

from __future__ import annotations

from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class Level(StrEnum):
    """What runs one point of a segmented op's index space (Futhark's SegThread and SegGroup).

    `thread`: a work-item. At function level the work-items of the whole device run the op; in the lambda of a
    `segmap group` the work-items of that point's work-group do (Futhark's SegThreadInBlock). A segred or segscan
    is always `thread`: how its segments are split (a work-item, a team, a work-group or several per segment) is
    the lowering's choice, made at run time from the segment length. `group`: a work-group per point, only for
    segmap (the intra-group version); `segred group` and `segscan group`, their old spelling, parse as `thread`.
    """

    THREAD = "thread"
    GROUP = "group"


class StencilBoundary(StrEnum):
    """What a stencil's neighbour outside the array reads: the nearest element (`clamp`), the element mirrored across
    the edge, the edge itself not repeated (`mirror`: -1 reads 1), the element a period away (`wrap`), or the op's
    constant (`constant`)."""

    CLAMP = "clamp"
    MIRROR = "mirror"
    WRAP = "wrap"
    CONSTANT = "constant"


class OnDevice(StrEnum):
    """What a threshold's default becomes on an OpenCL device (`soac.lowering.opencl.device_defaults`)."""

    RESIDENT = "resident"
    """The work-items the device runs at once: outer parallelism that fills it."""
    GROUP = "group"
    """A work-group's worth: inner parallelism that fills a work-group's SIMD lanes."""


@irdl_attr_definition
class LevelAttr(EnumAttribute[Level], SpacedOpaqueSyntaxAttribute):
    """`#soac<level thread>` or `#soac<level group>`."""

    name = "soac.level"


@irdl_attr_definition
class StencilBoundaryAttr(EnumAttribute[StencilBoundary], SpacedOpaqueSyntaxAttribute):
    """`#soac<boundary clamp>`; `soac.stencil`'s syntax prints it bare (`window [3, 3] clamp (%a : ...)`)."""

    name = "soac.boundary"
