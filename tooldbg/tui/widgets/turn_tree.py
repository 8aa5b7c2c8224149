"""Files → conversations → turns, each turn with a one-line summary and a finding badge.

Textual's Tree renders only the lines on screen, so a 10,000-turn conversation is 10,000 tree nodes
(plain data), not 10,000 widgets.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...render import ROLE_STYLES, clip, part_line, safe
from ..session import Location, Session, worst

BADGE_STYLES = {"error": "bold white on red", "warning": "bold black on yellow", "info": "black on cyan"}


def badge(findings: list) -> Text:  # noqa: ANN001
    severity = worst(findings)
    if severity is None:
        return Text()
    return Text(f" {len(findings)} {severity} ", BADGE_STYLES[severity])


class TurnTree(Tree[Location]):
    """Emits `TurnTree.Selected` when a turn (or a conversation) is highlighted."""

    class Selected(Message):
        def __init__(self, location: Location) -> None:
            super().__init__()
            self.location = location

    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__("logs", **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self._turn_nodes: dict[tuple[int, str, int], TreeNode[Location]] = {}
        self._conversation_nodes: dict[tuple[int, str], TreeNode[Location]] = {}

    def show_session(self, session: Session) -> None:
        self.clear()
        self._turn_nodes.clear()
        self._conversation_nodes.clear()
        for f, loaded in enumerate(session.files):
            label = safe(loaded.path.rsplit("/", 1)[-1], "bold")
            label.append_text(safe(f"  {', '.join(loaded.formats) or loaded.container}", "dim"))
            if loaded.errors:
                label.append(f"  {len(loaded.errors)} unreadable", "bold red")
            file_node = self.root.add(label, data=Location(f), expand=True)
            for conv in loaded.conversations:
                conv_findings = [x for x in session.findings
                                 if x.path == loaded.path and x.conversation == conv.id]
                label = Text(f"{conv.id} ", "bold")
                label.append_text(safe(conv.model or "", "dim"))
                label.append(f"  {len(conv.turns)} turns ")
                label.append_text(badge(conv_findings))
                conv_node = file_node.add(label, data=Location(f, conv.id), expand=True)
                self._conversation_nodes[(f, conv.id)] = conv_node
                for t, turn in enumerate(conv.turns):
                    node = conv_node.add_leaf(self.turn_label(t, turn, session.findings_at(f, conv.id, t)),
                                              data=Location(f, conv.id, t))
                    self._turn_nodes[(f, conv.id, t)] = node

    @staticmethod
    def turn_label(index: int, turn, findings: list) -> Text:  # noqa: ANN001
        label = Text(f"{index:>3} ", "dim")
        label.append(f"{turn.role:9}", ROLE_STYLES.get(turn.role, ""))
        if findings:
            label.append_text(badge(findings))
            label.append(" ")
        if turn.parts:
            label.append_text(Text(clip(part_line(turn.parts[0], width=60).plain, 60)))
            if len(turn.parts) > 1:
                label.append(f" +{len(turn.parts) - 1}", "dim")
        return label

    def select_location(self, location: Location) -> None:
        """Move the cursor to a turn (or conversation) and scroll it into view."""
        node = None
        if location.conversation is not None and location.turn is not None:
            node = self._turn_nodes.get((location.file, location.conversation, location.turn))
        if node is None and location.conversation is not None:
            node = self._conversation_nodes.get((location.file, location.conversation))
        if node is not None:
            self.move_cursor(node)
            self.scroll_to_node(node, animate=False)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[Location]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Selected(event.node.data))
