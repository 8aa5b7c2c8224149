"""Files → conversations → turns, each turn with a one-line summary and a finding badge.

Textual's Tree renders only the lines on screen, so a 10,000-turn conversation is 10,000 tree nodes
(plain data), not 10,000 widgets. Turn labels are built lazily, when a line is first painted (the
Tree caches the painted strips), so showing a session costs one cheap node per turn, and the
tree is exactly as wide as the pane: a summary is cut at the pane's edge rather than scrolled.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text, TextType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...model import Conversation, Turn
from ...render import ROLE_STYLES, part_line, safe
from ..session import Location, Session, worst

BADGE_STYLES = {"error": "bold white on red", "warning": "bold black on yellow", "info": "black on cyan"}
SUMMARY_WIDTH = 80
_ONE_LINE = str.maketrans({"\n": "⏎", "\r": "⏎", "\t": " "})


def badge(findings: list) -> Text:  # noqa: ANN001
    severity = worst(findings)
    if severity is None:
        return Text()
    return Text(f" {len(findings)} {severity} ", BADGE_STYLES[severity])


def one_line(text: Text, width: int) -> Text:
    """`text` on one line (line breaks shown as ⏎), cut to `width` cells with an ellipsis."""
    plain = text.plain
    if any(c in plain for c in "\n\r\t"):
        text = Text(plain.translate(_ONE_LINE), style=text.style, spans=text.spans)
    text.truncate(width, overflow="ellipsis")
    return text


class TurnTree(Tree[Location]):
    """Emits `TurnTree.Selected` when the user highlights a file, a conversation or a turn; moving
    the cursor from the screen (`select_location`) emits nothing: attributes down, messages up."""

    class Selected(Message):
        def __init__(self, location: Location) -> None:
            super().__init__()
            self.location = location

    _adding = False
    """True while a session's nodes are added (see `_invalidate`)."""

    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__("logs", **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self.session: Session | None = None
        self._file_nodes: dict[int, TreeNode[Location]] = {}
        self._turn_nodes: dict[tuple[int, str, int], TreeNode[Location]] = {}
        self._conversation_nodes: dict[tuple[int, str], TreeNode[Location]] = {}
        self._index_width: dict[tuple[int, str], int] = {}
        self._conversations: dict[tuple[int, str], Conversation] = {}
        self._quiet: TreeNode[Location] | None = None

    def show_session(self, session: Session) -> None:
        self.clear()
        self.session = session
        self._quiet = None
        self._file_nodes.clear()
        self._turn_nodes.clear()
        self._conversation_nodes.clear()
        self._index_width.clear()
        self._conversations.clear()
        self._adding = True
        try:
            self._add_files(session)
        finally:
            self._adding = False
        self._invalidate()

    def _add_files(self, session: Session) -> None:
        for f, loaded in enumerate(session.files):
            file_node = self.root.add(self._file_label(f), data=Location(f), expand=True)
            self._file_nodes[f] = file_node
            for conv in loaded.conversations:
                self._add_conversation(file_node, f, conv)

    def _file_label(self, f: int) -> Text:
        assert self.session is not None
        loaded = self.session.files[f]
        label = Text()
        label.append_text(safe(loaded.path.rsplit("/", 1)[-1], "bold"))
        label.append_text(safe(f"  {', '.join(loaded.formats) or loaded.container}", "dim"))
        if loaded.lacks:  # what the log's format does not carry, said once, on its file
            label.append_text(safe(f"  {loaded.container} log, lacks {', '.join(loaded.lacks)}", "dim"))
        if loaded.errors:
            label.append(f"  {len(loaded.errors)} unreadable", "bold red")
        file_findings = self.session.findings_in(f, None)
        if file_findings:
            label.append(" ")
            label.append_text(badge(file_findings))
        return label

    def _conversation_label(self, f: int, conv: Conversation) -> Text:
        assert self.session is not None
        label = Text.assemble((f"{conv.id} ", "bold"))
        label.append_text(safe(conv.model or "", "dim"))
        label.append(f"  {len(conv.turns)} turns ")
        label.append_text(badge(self.session.findings_in(f, conv.id)))
        return label

    def _add_conversation(self, file_node: TreeNode[Location], f: int, conv: Conversation) -> None:
        conv_node = file_node.add(self._conversation_label(f, conv), data=Location(f, conv.id), expand=True)
        self._conversation_nodes[(f, conv.id)] = conv_node
        self._conversations[(f, conv.id)] = conv
        self._add_turns(conv_node, f, conv, 0)

    def _add_turns(self, conv_node: TreeNode[Location], f: int, conv: Conversation, start: int) -> None:
        """Leaves for the turns from `start` on (their labels are made when painted)."""
        self._index_width[(f, conv.id)] = len(str(max(len(conv.turns) - 1, 0)))
        add, nodes, placeholder = conv_node.add_leaf, self._turn_nodes, Text()
        for t in range(start, len(conv.turns)):
            nodes[(f, conv.id, t)] = add(placeholder, data=Location(f, conv.id, t))

    def grow(self, session: Session) -> None:
        """Show `session`, the same files read further (a followed recording): new conversations
        and turns are added, labels and badges brought up to date, and the cursor stays on the turn
        it was on (a node's place, not its line, is kept)."""
        cursor = self.cursor_node.data if self.cursor_node is not None else None
        self.session = session
        self._adding = True
        try:
            for f, loaded in enumerate(session.files):
                file_node = self._file_nodes.get(f)
                if file_node is None:
                    file_node = self._file_nodes[f] = self.root.add(Text(), data=Location(f), expand=True)
                file_node.set_label(self._file_label(f))
                for conv in loaded.conversations:
                    self._grow_conversation(file_node, f, conv)
        finally:
            self._adding = False
        self._invalidate()
        if cursor is not None:
            self.select_location(cursor)

    def _grow_conversation(self, file_node: TreeNode[Location], f: int, conv: Conversation) -> None:
        key = (f, conv.id)
        conv_node = self._conversation_nodes.get(key)
        if conv_node is None:
            self._add_conversation(file_node, f, conv)
            return
        shown = len(conv_node.children)
        self._conversations[key] = conv
        conv_node.set_label(self._conversation_label(f, conv))
        for t in range(len(conv.turns), shown):  # a timeline can end sooner on a retried request
            self._turn_nodes.pop((f, conv.id, t)).remove()
        self._add_turns(conv_node, f, conv, shown)

    def turn_label(self, location: Location) -> Text:
        """The one-line summary of a turn: index, role, finding badge, its first part."""
        key = (location.file, location.conversation or "")
        conversation = self._conversations.get(key)
        if self.session is None or conversation is None or location.turn is None \
                or not 0 <= location.turn < len(conversation.turns):
            return Text()
        findings = self.session.findings_at(location.file, location.conversation, location.turn)
        return summary(location.turn, conversation.turns[location.turn], findings,
                       self._index_width.get(key, 3))

    # -- Tree hooks --------------------------------------------------------------------------

    def _invalidate(self) -> None:
        """Tree invalidates (and schedules a layout) on every node added: once is enough for a
        whole session (10,000 turns otherwise cost a fifth of a second here)."""
        if not self._adding:
            super()._invalidate()

    def process_label(self, label: TextType) -> Text:
        """A label is always text, never markup (Tree parses a `str` label as markup)."""
        return label if isinstance(label, Text) else Text(label)

    def render_label(self, node: TreeNode[Location], base_style: Style, style: Style) -> Text:
        location = node.data
        if location is None or location.turn is None:
            return super().render_label(node, base_style, style)
        label = self.turn_label(location)
        label.stylize(style)
        return label

    def get_label_width(self, node: TreeNode[Location]) -> int:
        """Labels are cut at the pane's edge (no sideways scrolling, and no label is built just to
        be measured): the canonical view shows the whole turn, the header the whole path."""
        return 0

    # -- moving ------------------------------------------------------------------------------

    def node_at(self, location: Location) -> TreeNode[Location] | None:
        """The node showing `location`: its turn, else its conversation, else its file."""
        node = None
        if location.conversation is not None and location.turn is not None:
            node = self._turn_nodes.get((location.file, location.conversation, location.turn))
        if node is None and location.conversation is not None:
            node = self._conversation_nodes.get((location.file, location.conversation))
        if node is None:
            node = self._file_nodes.get(location.file)
        return node

    def select_location(self, location: Location) -> None:
        """Move the cursor to a turn (or conversation, or file) and scroll it into view, without
        emitting `Selected`: the caller already shows that location."""
        node = self.node_at(location)
        if node is None:
            return
        parent = node.parent  # a collapsed conversation or file would hide the node
        while parent is not None and not parent.is_root:
            if not parent.is_expanded:
                parent.expand()
            parent = parent.parent
        self.last_line  # noqa: B018  (lay out pending nodes so `node.line` is known)
        if node.line != self.cursor_line:
            self._quiet = node
        self.move_cursor(node)
        self.scroll_to_node(node, animate=False)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[Location]) -> None:
        event.stop()
        quiet, self._quiet = self._quiet, None
        if event.node is quiet:
            return
        if event.node.data is not None:
            self.post_message(self.Selected(event.node.data))


def summary(index: int, turn: Turn, findings: list, index_width: int = 3) -> Text:  # noqa: ANN001
    label = Text.assemble((f"{index:>{index_width}} ", "dim"))
    label.append_text(safe(f"{turn.role:10}", ROLE_STYLES.get(turn.role, "")))
    if findings:
        label.append_text(badge(findings))
        label.append(" ")
    if turn.parts:
        label.append_text(one_line(part_line(turn.parts[0], width=SUMMARY_WIDTH), SUMMARY_WIDTH))
        if len(turn.parts) > 1:
            label.append(f" +{len(turn.parts) - 1}", "dim")
    else:
        label.append("(empty)", "dim")
    return label
