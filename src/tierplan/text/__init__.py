"""How numbers and conditions are written in words: the pages and the export (tierplan/views) and the change log and
import previews (tierplan/services) write them alike. Pure: it knows the planning core and nothing else."""
